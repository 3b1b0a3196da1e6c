import {
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLUnionType,
  type GraphQLFieldConfigMap,
  type GraphQLOutputType,
} from 'graphql';
import { resolvedComponents, type FieldDefinition } from '../content/public.js';
import { GraphQLJSON } from './json-scalar.js';

const pascal = (s: string) =>
  s
    .split('_')
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');

export const nestsComponents = (f: FieldDefinition) => f.type === 'component' || f.type === 'blocks';

/**
 * The GraphQL types of component and blocks fields, built from the definitions each field carries
 * (content's component resolution): an object type per component (`SeoComponent`), a union of them per
 * blocks field (`PageBodyBlock`, resolved by `__component`), lists for repeatable components and blocks.
 * One instance per schema build: the types are shared by every collection that uses the component.
 */
export class ComponentTypes {
  private readonly objects = new Map<string, GraphQLObjectType>();
  private readonly unions = new Map<string, GraphQLUnionType>();

  constructor(
    private readonly taken: Set<string>,
    /** A field's scalar type (collection-types.ts scalarFor, without enums). */
    private readonly scalarOf: (f: FieldDefinition) => GraphQLOutputType,
  ) {}

  private free(base: string): string {
    let name = base;
    for (let i = 2; this.taken.has(name); i++) name = `${base}${i}`;
    this.taken.add(name);
    return name;
  }

  /** The object type of component `name`, or undefined when its definition is not at hand (too deep, or unknown). */
  private objectOf(name: string, field: FieldDefinition): GraphQLObjectType | undefined {
    const known = this.objects.get(name);
    if (known) return known;
    const fields = resolvedComponents(field)?.[name];
    if (!fields?.length) return undefined;
    const typeName = this.free(`${pascal(name)}Component`);
    const object: GraphQLObjectType = new GraphQLObjectType({
      name: typeName,
      description: `The component '${name}'.`,
      fields: () => {
        const out: GraphQLFieldConfigMap<unknown, unknown> = {};
        for (const f of fields) out[f.name] = { type: this.typeOf(f, typeName), description: f.label };
        return out;
      },
    });
    this.objects.set(name, object);
    return object;
  }

  /** The output type of a field inside a component (`owner`: the type holding it, naming a blocks union). */
  private typeOf(f: FieldDefinition, owner: string): GraphQLOutputType {
    return nestsComponents(f) ? this.outputOf(f, owner) : this.scalarOf(f);
  }

  /** The output type of a component or blocks field of the type `owner` (JSON when a definition is missing). */
  outputOf(f: FieldDefinition, owner: string): GraphQLOutputType {
    if (f.type === 'component') {
      const object = this.objectOf(f.component!, f);
      if (!object) return GraphQLJSON;
      return f.repeatable ? new GraphQLList(new GraphQLNonNull(object)) : object;
    }
    const members = (f.components ?? []).map((n) => this.objectOf(n, f));
    if (!members.length || members.some((m) => !m)) return new GraphQLList(new GraphQLNonNull(GraphQLJSON));
    const key = `${owner}.${f.name}`;
    let union = this.unions.get(key);
    if (!union) {
      const byComponent = new Map((f.components ?? []).map((n, i) => [n, members[i]!.name]));
      union = new GraphQLUnionType({
        name: this.free(`${owner}${pascal(f.name)}Block`),
        description: `A block of '${f.name}': one of ${[...byComponent.values()].join(', ')} (by its __component).`,
        types: members as GraphQLObjectType[],
        resolveType: (value: { __component?: unknown }) => byComponent.get(String(value?.__component)),
      });
      this.unions.set(key, union);
    }
    return new GraphQLList(new GraphQLNonNull(union));
  }
}

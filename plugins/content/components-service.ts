import { UniqueConstraintError, type Sequelize } from 'sequelize';
import { z } from 'zod';
import {
  modelsOf,
  ConflictError,
  NotFoundError,
  ValidationError,
  type Followed,
  type EventBus,
  type PluginBootContext,
} from '../../kernel/sdk.js';
import { defaultLabel } from './collection-schema.js';
import { fieldSchema, type FieldDefinition } from './field-types.js';
import { COLLECTION_NAME, COLLECTION_NAME_RULE } from './names.js';
import { ComponentRow } from './models/component-row.js';
import { COMPONENTS_CHANGED } from './public.js';
import { componentNestingIssues } from './component-resolution.js';
import { planComponentChange, rewriteComponentValues, type ComponentPlan, type UsingCollection } from './component-schema-plan.js';
import { checkFieldChanges } from './field-conversion.js';
import { SchemaChangeLosesDataError } from './schema-plan.js';

const componentFields = z
  .array(fieldSchema)
  .min(1)
  .max(100)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((f, i) => {
      const key = f.name.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `'${f.name}' is defined twice (names are compared without case)` });
      seen.add(key);
    });
  });

/** POST /api/components (API decisions, "Content model v2"). */
export const componentInput = z
  .object({
    name: z.string().regex(COLLECTION_NAME, `the name ${COLLECTION_NAME_RULE}`),
    label: z.string().min(1).max(191).optional(),
    fields: componentFields,
  })
  .strict();
/** PATCH /api/components/:name: the whole new field list, as schema PATCH takes it. */
export const componentPatch = z.object({ label: z.string().min(1).max(191).optional(), fields: componentFields.optional() }).strict();
/** PATCH /api/components/:name: the new label or fields, and the plan's hash when the change loses values. */
export const componentPatchBody = componentPatch.extend({
  planHash: z
    .string()
    .max(64)
    .optional()
    .describe('The planHash of POST /api/components/{name}/schema/plan: confirms a change that loses stored values'),
});
export type ComponentInput = z.output<typeof componentInput>;
export type ComponentPatch = z.output<typeof componentPatch>;

export interface ComponentDefinition {
  name: string;
  label: string;
  fields: FieldDefinition[];
  version: number;
}

/** The public shape of a component (GET /api/components). */
export const describeComponent = (c: ComponentDefinition) => ({ name: c.name, label: c.label, fields: c.fields });

export class ComponentNotFoundError extends NotFoundError {
  constructor(name: string) {
    super(`Component '${name}' not found`);
  }
}

/** The names a field list uses (`component` and `blocks` fields), for the in-use check of DELETE. */
export function componentsUsedBy(fields: ReadonlyArray<object>): Set<string> {
  const out = new Set<string>();
  for (const f of fields as ReadonlyArray<{ component?: unknown; components?: unknown }>) {
    if (typeof f.component === 'string') out.add(f.component);
    if (Array.isArray(f.components)) for (const n of f.components) if (typeof n === 'string') out.add(n);
  }
  return out;
}

/**
 * Components: rows in content_components (configuration shared by every tenant), kept in memory on every
 * instance and read again when any instance announces a change. Their values live inside the entries
 * that use them (as JSON), so a component has no table of its own.
 */
export class ComponentsService {
  private loaded = new Map<string, ComponentDefinition>();
  private copy: Followed<Map<string, ComponentDefinition>> | null = null;
  private readonly rows: typeof ComponentRow;

  constructor(
    sequelize: Sequelize,
    private readonly events: EventBus,
    /** The collections (their field lists and models), for the in-use check and the values' rewrite. */
    private readonly collectionFields: () => UsingCollection[],
    /** Drops a tenant's cached lists of a collection whose entries a change rewrote (never throws). */
    private readonly invalidateLists: (tenant: string, collection: string) => Promise<void> = async () => {},
  ) {
    this.rows = modelsOf(sequelize.models, { ComponentRow }).ComponentRow;
  }

  private async read(): Promise<Map<string, ComponentDefinition>> {
    const rows = await this.rows.findAll({ order: [['name', 'ASC']] });
    return new Map(
      rows.map((r) => [r.name, { name: r.name, label: r.label, fields: JSON.parse(r.fields) as FieldDefinition[], version: r.version }]),
    );
  }

  async follow(follow: PluginBootContext['follow']): Promise<void> {
    this.copy = follow({ name: 'components', load: () => this.read(), on: [COMPONENTS_CHANGED], initial: this.loaded });
    if (!(await this.copy.ready())) await this.copy.read();
  }

  private get current(): Map<string, ComponentDefinition> {
    return this.copy?.current() ?? this.loaded;
  }

  private async changed(name: string): Promise<void> {
    if (this.copy) await this.copy.read();
    else this.loaded = await this.read();
    await this.events.publish(COMPONENTS_CHANGED, { name });
  }

  list(): ComponentDefinition[] {
    return [...this.current.values()];
  }

  /** The definitions by name as held now: a new map after every change (the collections resolve their fields from it). */
  definitions(): ReadonlyMap<string, ComponentDefinition> {
    return this.current;
  }

  /** The definitions read again now (another instance may have just created one). */
  async fresh(): Promise<ReadonlyMap<string, ComponentDefinition>> {
    return this.copy ? this.copy.read() : (this.loaded = await this.read());
  }

  /** 400 naming the field when `fields` use an unknown component, nest too deep or come back to `name`. */
  private async checkNesting(name: string, fields: FieldDefinition[]): Promise<void> {
    let issues = componentNestingIssues(name, fields, this.current);
    if (issues.length) issues = componentNestingIssues(name, fields, await this.fresh());
    if (issues.length)
      throw new ValidationError(`Invalid component '${name}': ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }

  async get(name: string): Promise<ComponentDefinition> {
    const found = this.current.get(name) ?? (this.copy ? await this.copy.read() : (this.loaded = await this.read())).get(name);
    if (!found) throw new ComponentNotFoundError(name);
    return found;
  }

  async create(input: ComponentInput): Promise<ComponentDefinition> {
    await this.checkNesting(input.name, input.fields);
    const now = Date.now();
    try {
      await this.rows.create({
        name: input.name,
        label: input.label ?? defaultLabel(input.name),
        fields: JSON.stringify(input.fields),
        version: 1,
        created_at: now,
        updated_at: now,
      });
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new ConflictError(`Component '${input.name}' already exists`);
      throw err;
    }
    await this.changed(input.name);
    return this.get(input.name);
  }

  /** The stored row and its field list (404 when there is none); a new field list is checked against it. */
  private async stored(name: string, patch: ComponentPatch, restoring = false) {
    const row = await this.rows.findByPk(name);
    if (!row) throw new ComponentNotFoundError(name);
    const before = JSON.parse(row.fields) as FieldDefinition[];
    if (patch.fields) {
      await this.checkNesting(name, patch.fields);
      if (!restoring) checkFieldChanges(before, patch.fields);
    }
    return { row, before, after: patch.fields ?? before };
  }

  /** What `patch` would do to the component's values stored in entries (component-schema-plan.ts), changing nothing. */
  async planChange(name: string, patch: ComponentPatch): Promise<ComponentPlan> {
    const { row, before, after } = await this.stored(name, patch);
    return planComponentChange(row.version, { name, before, after }, patch, this.current, this.collectionFields());
  }

  /** A change as PATCH makes it: one that would lose stored values needs the plan's hash (409 with the plan otherwise). */
  async change(name: string, body: z.output<typeof componentPatchBody>): Promise<ComponentDefinition> {
    const { planHash, ...patch } = body;
    if (!patch.fields) return this.update(name, patch);
    const plan = await this.planChange(name, patch);
    if (plan.losesData && planHash !== plan.planHash) throw new SchemaChangeLosesDataError(plan);
    return this.update(name, patch, plan.version);
  }

  /**
   * A new label or field list; a concurrent change (or a change since the plan at `planned`) answers 409.
   * A new field list is stored first (later writes follow it), then every entry holding the component is
   * rewritten to it (removed keys dropped, values converted, blocks of types no longer allowed dropped).
   * `restoring` (a backup restore, which puts the entries back too): the backup's field list is taken as it
   * is, without the conversion check or the rewrite.
   */
  async update(name: string, patch: ComponentPatch, planned?: number, restoring = false): Promise<ComponentDefinition> {
    const { row, before, after } = await this.stored(name, patch, restoring);
    if (planned !== undefined && planned !== row.version)
      throw new ConflictError(`Component '${name}' was changed since it was planned; plan the change again`);
    const defs = this.current;
    const [claimed] = await this.rows.update(
      {
        label: patch.label ?? row.label,
        fields: patch.fields ? JSON.stringify(patch.fields) : row.fields,
        version: row.version + 1,
        updated_at: Date.now(),
      },
      { where: { name, version: row.version } },
    );
    if (claimed === 0) throw new ConflictError(`Component '${name}' was changed at the same time; reload it and try again`);
    await this.changed(name);
    if (patch.fields && !restoring) {
      const touched = await rewriteComponentValues({ name, before, after }, defs, this.collectionFields());
      for (const t of touched) await this.invalidateLists(t.tenant, t.collection);
    }
    return this.get(name);
  }

  /** Who uses a component: collections and other components, by name. */
  usersOf(name: string): string[] {
    const users: string[] = [];
    for (const c of this.collectionFields()) if (componentsUsedBy(c.fields).has(name)) users.push(`collection '${c.name}'`);
    for (const c of this.list()) if (c.name !== name && componentsUsedBy(c.fields).has(name)) users.push(`component '${c.name}'`);
    return users;
  }

  /** Deletes a component; 409 CONFLICT while a collection or component uses it. */
  async remove(name: string): Promise<void> {
    await this.get(name);
    const users = this.usersOf(name);
    if (users.length) throw new ConflictError(`Component '${name}' is used by ${users.join(', ')}`);
    await this.rows.destroy({ where: { name } });
    await this.changed(name);
  }
}

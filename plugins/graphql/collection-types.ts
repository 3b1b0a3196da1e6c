import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import { AppError, assertPermission } from '../../kernel/sdk.js';
import type {
  FieldDefinition as CollectionField,
  CollectionDefinition as CollectionLike,
  EntriesService as EntriesPort,
  Entry,
} from '../content/public.js';
import { ENTRY_STATUSES, inverseOf } from '../content/public.js';
import type { GraphqlContext } from './graphql-context.js';
import { GraphQLJSON } from './json-scalar.js';
import type { CollectionNames } from './names.js';
import { ComponentTypes, nestsComponents } from './component-types.js';

export const EntryStatusEnum = new GraphQLEnumType({
  name: 'EntryStatus',
  description: 'draft, published or archived; callers without content:write see published entries only.',
  values: Object.fromEntries(ENTRY_STATUSES.map((s) => [s, { value: s }])),
});

export interface CollectionTypes {
  names: CollectionNames;
  collection: CollectionLike;
  object: GraphQLObjectType;
  list: GraphQLObjectType;
  input: GraphQLInputObjectType;
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
/** The locale fields of every entry (API decisions, "Locales"; `_fallbackFields` only in collections with localized fields). */
const LOCALE_FIELDS: GraphQLFieldConfigMap<Entry, GraphqlContext> = {
  _locale: { type: GraphQLString, description: 'The locale answered' },
  _locales: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)), description: 'The locales in which the entry has a version' },
  _fallbackFields: {
    type: new GraphQLList(new GraphQLNonNull(GraphQLString)),
    description: 'The localized fields whose value came from a fallback locale',
  },
};
/**
 * Editorial state: the review stage (collections in a workflow, docs/features/review-stages.md) and whether a working
 * draft exists (collections with drafts, for callers who may write, docs/features/drafts.md); null otherwise.
 * `hasDraft` is left out of a collection that has a field of that name.
 */
const stageField: GraphQLFieldConfigMap<Entry, GraphqlContext>[string] = {
  type: GraphQLString,
  description: "The entry's review stage (collections in a workflow); null otherwise",
};
const hasDraftField: GraphQLFieldConfigMap<Entry, GraphqlContext>[string] = {
  type: GraphQLBoolean,
  description: 'A working draft exists beside the published entry (collections with drafts, callers who may write); null otherwise',
};
/** A searched list's snippets (docs/features/search.md): field name -> text around the match, matches in <mark>, the rest HTML-escaped. */
const highlightField: GraphQLFieldConfigMap<Entry, GraphqlContext>[string] = {
  type: GraphQLJSON,
  description:
    'In a list read with `search`: field name -> a snippet around the first match, every match in <mark>…</mark>, the rest HTML-escaped (only fields you may read); null otherwise',
};
/** What an entry's reading adds beside its values: its review stage and a search's snippets. */
const STATE_FIELDS: GraphQLFieldConfigMap<Entry, GraphqlContext> = { _stage: stageField, _highlight: highlightField };
const SYSTEM_FIELDS = ['_id', 'slug', 'status', 'syncId', 'version', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy'];

/** A select field is an enum (Post + Category) when its options are GraphQL names and the type name is free. */
function selectEnum(type: string, f: CollectionField, taken: Set<string>): GraphQLEnumType | null {
  const name = `${type}${f.name.charAt(0).toUpperCase()}${f.name.slice(1)}`;
  const options = f.options ?? [];
  const valid =
    options.length > 0 &&
    new Set(options).size === options.length &&
    options.every((o) => GRAPHQL_NAME.test(o) && !['true', 'false', 'null'].includes(o));
  if (!valid || taken.has(name)) return null;
  taken.add(name);
  return new GraphQLEnumType({ name, values: Object.fromEntries(options.map((o) => [o, { value: o }])) });
}

function scalarFor(f: CollectionField, enums: Map<string, GraphQLEnumType>): GraphQLOutputType & GraphQLInputType {
  switch (f.type) {
    case 'number':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    case 'media':
      return GraphQLID;
    case 'relation':
      // A many-relation: its entry ids in order.
      return f.cardinality === 'many' ? new GraphQLList(new GraphQLNonNull(GraphQLID)) : GraphQLID;
    case 'json':
    case 'component': // inputs: JSON, checked by the entries service; outputs: component-types.ts
    case 'blocks':
      return GraphQLJSON;
    case 'select': {
      const one = enums.get(f.name) ?? GraphQLString;
      // A multiple select: a list of its options (the enum when the options make one, as for a single select).
      return f.multiple ? new GraphQLList(new GraphQLNonNull(one)) : one;
    }
    default:
      return GraphQLString; // text, richtext (HTML), markdown (Markdown source), date (ISO 8601), email, url, color (#rrggbb)
  }
}

const gone = (err: unknown) => err instanceof AppError && (err.code === 'ENTRY_NOT_FOUND' || err.code === 'COLLECTION_NOT_FOUND');

/** Per operation, target collection and locale: the ids asked for in this tick, loaded together in the next. */
const batches = new WeakMap<GraphqlContext, Map<string, { ids: Set<string>; loaded: Promise<Map<string, Entry>> }>>();

/**
 * One related entry through its operation's batch: every relation resolved in one tick costs one query per target
 * (and one more for its versions in other locales when it has localized fields).
 */
function batched(entries: EntriesPort, target: string, id: string, locale: string | undefined, ctx: GraphqlContext): Promise<Entry | null> {
  let byTarget = batches.get(ctx);
  if (!byTarget) batches.set(ctx, (byTarget = new Map()));
  const key = `${target}|${locale ?? ''}`;
  let batch = byTarget.get(key);
  if (!batch) {
    const ids = new Set<string>();
    const open = byTarget;
    const loaded = new Promise<void>((resolve) => process.nextTick(resolve)).then(() => {
      open.delete(key);
      return entries.getMany(target, [...ids], ctx.identity, locale).catch((err: unknown) => {
        if (gone(err)) return new Map<string, Entry>();
        throw err;
      });
    });
    byTarget.set(key, (batch = { ids, loaded }));
  }
  batch.ids.add(id);
  return batch.loaded.then((found) => found.get(id) ?? null);
}

/** A stored select value read against the current options: unknown ones drop out of a list, a single one reads null. */
function knownOptions(value: unknown, allowed: Set<string>, multiple: boolean): unknown {
  if (multiple) return Array.isArray(value) ? value.filter((v) => typeof v === 'string' && allowed.has(v)) : null;
  return typeof value === 'string' && allowed.has(value) ? value : null;
}

/**
 * A related entry, or null when it is gone or hidden from the caller (a draft for a reader, or not published in the
 * locale for a reader there). It is answered in the locale its entry was (the query's `locale`, passed down as
 * `_locale`): its values there with fallbacks.
 */
async function related(entries: EntriesPort, target: string, id: unknown, from: Entry, ctx: GraphqlContext): Promise<Entry | null> {
  if (typeof id !== 'string') return null;
  assertPermission(ctx.identity, 'content:read', target);
  const locale = typeof from._locale === 'string' ? from._locale : undefined;
  if (!ctx.memo) return entries.get(target, id, ctx.identity, { locale }).catch((err: unknown) => (gone(err) ? null : Promise.reject(err)));
  const key = `${target}/${id}/${locale ?? ''}`;
  if (!ctx.memo.has(key)) ctx.memo.set(key, batched(entries, target, id, locale, ctx));
  return ctx.memo.get(key) as Promise<Entry | null>;
}

/**
 * The fields that resolve a relation's entries when its target collection is in the schema: `<field>Entry`
 * (one) or `<field>Entries` (many, in order, those gone or hidden left out), unless a field has that name.
 */
function relatedFields(
  f: CollectionField,
  target: CollectionTypes,
  taken: Set<string>,
  entries: EntriesPort,
): GraphQLFieldConfigMap<Entry, GraphqlContext> {
  const name = target.collection.name;
  if (f.cardinality === 'many') {
    if (taken.has(`${f.name}Entries`)) return {};
    return {
      [`${f.name}Entries`]: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(target.object))),
        description: `The ${name} entries that '${f.name}' names, in order (those gone or not visible to you left out).`,
        extensions: { cost: 'io' },
        resolve: async (entry, _args, ctx) => {
          const ids = Array.isArray(entry[f.name]) ? (entry[f.name] as unknown[]) : [];
          const found = await Promise.all(ids.map((id) => related(entries, name, id, entry, ctx)));
          return found.filter((e): e is Entry => e !== null);
        },
      },
    };
  }
  if (taken.has(`${f.name}Entry`)) return {};
  return {
    [`${f.name}Entry`]: {
      type: target.object,
      description: `The ${target.collection.singular} that '${f.name}' names (null when it is gone or not visible to you).`,
      extensions: { cost: 'io' },
      resolve: (entry, _args, ctx) => related(entries, name, entry[f.name], entry, ctx),
    },
  };
}

/**
 * The object, list and input types of every included collection. A relation field also gets
 * `<field>Entry` resolving to the related entry when its target collection is in the schema.
 */
export function buildCollectionTypes(
  included: Array<{ names: CollectionNames; collection: CollectionLike }>,
  taken: Set<string>,
  entries: EntriesPort,
): Map<string, CollectionTypes> {
  const out = new Map<string, CollectionTypes>();
  const components = new ComponentTypes(taken, (f) => scalarFor(f, new Map()));
  for (const { names, collection: c } of included) {
    const enums = new Map<string, GraphQLEnumType>();
    for (const f of c.fields) {
      const e = f.type === 'select' ? selectEnum(names.type, f, taken) : null;
      if (e) enums.set(f.name, e);
    }
    const fieldNames = new Set([...SYSTEM_FIELDS, ...c.fields.map((f) => f.name)]);
    const object: GraphQLObjectType = new GraphQLObjectType({
      name: names.type,
      description: `An entry of the collection '${c.name}' (${c.label}).`,
      fields: () => {
        const fields: GraphQLFieldConfigMap<Entry, GraphqlContext> = {
          _id: { type: new GraphQLNonNull(GraphQLID) },
          slug: { type: new GraphQLNonNull(GraphQLString) },
          status: { type: new GraphQLNonNull(EntryStatusEnum) },
          syncId: { type: GraphQLID },
          version: { type: new GraphQLNonNull(GraphQLInt) },
          createdAt: { type: new GraphQLNonNull(GraphQLString), description: 'ISO 8601' },
          updatedAt: { type: new GraphQLNonNull(GraphQLString), description: 'ISO 8601' },
          createdBy: { type: GraphQLID },
          updatedBy: { type: GraphQLID },
          // Every entry answers its locale (API decisions, "Locales").
          ...LOCALE_FIELDS,
          ...STATE_FIELDS,
          ...(c.fields.some((f) => f.name === 'hasDraft') ? {} : { hasDraft: hasDraftField }),
        };
        for (const f of c.fields) {
          fields[f.name] = {
            type: nestsComponents(f) ? components.outputOf(f, names.type) : scalarFor(f, enums),
            description: [f.label, f.type === 'date' ? 'ISO 8601' : null].filter(Boolean).join('; ') || undefined,
          };
          const allowed = enums.has(f.name) ? new Set(f.options) : null;
          // A value no longer among the options (they were changed after it was stored) reads as null, not as an error.
          if (allowed) fields[f.name]!.resolve = (entry) => knownOptions(entry[f.name], allowed, f.multiple === true);
          const target = f.type === 'relation' && f.collection ? out.get(f.collection) : undefined;
          if (target) Object.assign(fields, relatedFields(f, target, fieldNames, entries));
        }
        return fields;
      },
    });
    const list = new GraphQLObjectType({
      name: names.listType,
      fields: {
        items: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(object))) },
        total: { type: new GraphQLNonNull(GraphQLInt) },
        page: { type: GraphQLInt, description: 'The page asked for; null when the list was read by cursor (after, before)' },
        limit: { type: new GraphQLNonNull(GraphQLInt) },
        nextCursor: {
          type: GraphQLString,
          description: 'Read by cursor: the cursor of the next page (after=), null on the last page; null when read by page',
        },
        prevCursor: {
          type: GraphQLString,
          description: 'Read by cursor: the cursor of the previous page (before=), null on the first page; null when read by page',
        },
      },
    });
    const input = new GraphQLInputObjectType({
      name: names.inputType,
      description: `Fields of a ${c.singular}; every field is optional here: required fields and the other rules are checked as over REST (VALIDATION_ERROR with issues).`,
      fields: () => ({
        // Inverse fields are never written.
        ...Object.fromEntries(
          c.fields.filter((f) => !inverseOf(f)).map((f) => [f.name, { type: scalarFor(f, enums), description: f.label }]),
        ),
        slug: { type: GraphQLString },
        status: { type: EntryStatusEnum },
      }),
    });
    out.set(c.name, { names, collection: c, object, list, input });
  }
  return out;
}

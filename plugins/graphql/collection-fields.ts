import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { AppError, ValidationError, type BusEvent, assertPermission, ruleLimits } from '../../kernel/sdk.js';
import type { EntriesService as EntriesPort, Entry, ListQuery } from '../content/public.js';
import { listQuerySchema } from '../content/public.js';
import { EntryStatusEnum, type CollectionTypes } from './collection-types.js';
import { ENTRY_EVENT_NAMES, entryInLocale, type EntryEventKind, type LocaleEventPort } from './entry-events.js';
import type { GraphqlContext } from './graphql-context.js';
import { GraphQLJSON } from './json-scalar.js';

type Field = GraphQLFieldConfig<unknown, GraphqlContext, any>;
export type StreamFactory = <T>(
  ctx: GraphqlContext,
  names: string[],
  pick: (event: BusEvent) => T | undefined | Promise<T | undefined>,
) => AsyncIterableIterator<T>;

/** The JSON scalar's value as the JSON text the entries service expects (a string is taken as that text). */
const filterText = (v: unknown) => (v === null || v === undefined ? undefined : typeof v === 'string' ? v : JSON.stringify(v));
const present = (args: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));

/** A list field's arguments under the REST list query's rules (content's listQuerySchema: limit 25 by default, capped at 100). */
export function listQuery(args: Record<string, unknown>): ListQuery {
  const parsed = listQuerySchema.safeParse(present({ ...args, filter: filterText(args.filter) }));
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: ['query', ...i.path.map(String)].join('.'), message: i.message }));
  throw new ValidationError(`Invalid request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

const notFoundAsNull = (err: unknown) => {
  if (err instanceof AppError && err.code === 'ENTRY_NOT_FOUND') return null;
  throw err;
};
/** Input objects may come without a prototype; the service wants a plain object. */
const plain = (v: unknown) => ({ ...(v as Record<string, unknown>) });

const LOCALE_ARG = {
  type: GraphQLString,
  description:
    "A locale's code (GET /api/locales): localized fields in that locale, with its fallbacks (_fallbackFields); default: the default locale",
};
const WRITE_LOCALE_ARG = {
  type: GraphQLString,
  description:
    "A locale's code (GET /api/locales): the localized fields (and status) written are that locale's version's, the answer is in it; default: the default locale. As ?locale= over REST",
};
const SUBSCRIPTION_LOCALE_ARG = {
  type: GraphQLString,
  description:
    "A locale's code (GET /api/locales): the entries in that locale, with its fallbacks (_fallbackFields); readers get them as they are published there; default: the default locale",
};
/** A GraphQL read names one locale: `*` answers objects where the schema has the fields' own types. */
function oneLocale(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (v === '*')
    throw new ValidationError('GraphQL reads name one locale (REST answers ?locale=*)', [{ path: 'locale', message: 'one locale, not *' }]);
  return String(v);
}

/** posts(...) and post(_id) */
export function queryFields(t: CollectionTypes, entries: EntriesPort): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  const { names, collection } = t;
  const list: Field = {
    type: new GraphQLNonNull(t.list),
    description: `Entries of '${collection.name}' (content:read; without content:write only published ones). As GET /api/collections/${collection.name}.`,
    args: {
      page: {
        type: GraphQLInt,
        description: '1-based, default 1; a page starting past the 10,000th entry (the default maxListOffset) is refused: PAGE_TOO_DEEP',
      },
      after: {
        type: GraphQLString,
        description: "Cursor pagination: the entries after this cursor (a list's nextCursor; empty: from the first entry). Not with page",
      },
      before: { type: GraphQLString, description: "Cursor pagination: the entries before this cursor (a list's prevCursor)" },
      limit: { type: GraphQLInt, description: 'default 25; above 100 is capped to 100' },
      sort: { type: GraphQLString, description: 'field, -field or field:asc|desc, comma-separated; default -createdAt' },
      filter: {
        type: GraphQLJSON,
        description:
          '{"field": value} or {"field": {"eq"|"ne"|"gt"|"gte"|"lt"|"lte"|"in"|"nin"|"contains"|"startsWith"|"null": value}}, grouped with $or, $and, $not; as an object or its JSON text',
      },
      search: {
        type: GraphQLString,
        description:
          'full-text: words match as prefixes, "quoted phrases" as they stand, over the searched fields and the slug; most relevant first without sort; each item answers _highlight',
      },
      status: { type: EntryStatusEnum },
      locale: LOCALE_ARG,
    },
    extensions: { cost: 'list' },
    async resolve(_root, args, ctx) {
      assertPermission(ctx.identity, 'content:read', collection.name);
      return (await entries.list(collection.name, listQuery({ ...args, locale: oneLocale(args.locale) }), ctx.identity)).value;
    },
  };
  const one: Field = collection.singleton
    ? {
        type: t.object,
        description: `The one entry of the singleton '${collection.name}'; null before it is written (or when it is not published and you lack content:write). As GET /api/collections/${collection.name}/single.`,
        async resolve(_root, _args, ctx) {
          assertPermission(ctx.identity, 'content:read', collection.name);
          return entries.single.get(collection.name, ctx.identity).catch(notFoundAsNull);
        },
      }
    : {
        type: t.object,
        description: `One entry of '${collection.name}' by id; null when there is none (or it is not published and you lack content:write).`,
        args: { _id: { type: new GraphQLNonNull(GraphQLID) }, locale: LOCALE_ARG },
        async resolve(_root, args, ctx) {
          assertPermission(ctx.identity, 'content:read', collection.name);
          return entries.get(collection.name, String(args._id), ctx.identity, { locale: oneLocale(args.locale) }).catch(notFoundAsNull);
        },
      };
  return { [names.list]: list, [names.one]: one };
}

/** createPost, updatePost, deletePost, setPostStatus: content:write, validated by the entries service as over REST. */
export function mutationFields(t: CollectionTypes, entries: EntriesPort): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  const { names, collection } = t;
  const id = { _id: { type: new GraphQLNonNull(GraphQLID) } };
  const write = <T>(ctx: GraphqlContext, run: () => Promise<T>) => {
    assertPermission(ctx.identity, 'content:write', collection.name);
    return run();
  };
  return {
    [names.create]: {
      type: new GraphQLNonNull(t.object),
      args: { input: { type: new GraphQLNonNull(t.input) }, locale: WRITE_LOCALE_ARG },
      description: `Creates an entry (status draft unless given); with locale (not the default), created in that locale. As POST /api/collections/${collection.name}.`,
      resolve: (_r, args, ctx) =>
        write(ctx, () => entries.create(collection.name, plain(args.input), ctx.identity, oneLocale(args.locale))),
    },
    [names.update]: {
      type: new GraphQLNonNull(t.object),
      args: { ...id, input: { type: new GraphQLNonNull(t.input) }, locale: WRITE_LOCALE_ARG },
      description: "Updates the given fields (null clears a field; a required field cannot be cleared); with locale, that locale's values.",
      resolve: (_r, args, ctx) =>
        write(ctx, () => entries.update(collection.name, String(args._id), plain(args.input), ctx.identity, oneLocale(args.locale))),
    },
    [names.delete]: {
      type: new GraphQLNonNull(GraphQLBoolean),
      args: id,
      description: 'Deletes an entry and its revisions; true when done (ENTRY_NOT_FOUND when there is none).',
      resolve: (_r, args, ctx) =>
        write(ctx, async () => {
          await entries.remove(collection.name, String(args._id), ctx.identity);
          return true;
        }),
    },
    [names.setStatus]: {
      type: new GraphQLNonNull(t.object),
      args: { ...id, status: { type: new GraphQLNonNull(EntryStatusEnum) }, locale: WRITE_LOCALE_ARG },
      description: "Sets the status: draft, published or archived (with locale: that locale's version's status).",
      resolve: (_r, args, ctx) =>
        write(ctx, () => entries.update(collection.name, String(args._id), { status: args.status }, ctx.identity, oneLocale(args.locale))),
    },
  };
}

/**
 * postAdded, postUpdated, postDeleted: see entry-events.ts for who gets what. A role's read rule for the
 * collection also lets its holders subscribe, and keeps what they get to it (EntriesService.eventEntry: only
 * entries meeting its `where`, without the fields it hides).
 */
export function subscriptionFields(
  t: CollectionTypes,
  stream: StreamFactory,
  entries: LocaleEventPort,
): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  const { names, collection } = t;
  const field = (kind: EntryEventKind, description: string): Field => ({
    type: new GraphQLNonNull(t.object),
    description: `${description} (content:read or a read rule; your tenant only; without content:write only published entries, see the README).`,
    args: { locale: SUBSCRIPTION_LOCALE_ARG },
    subscribe(_root, args, ctx) {
      const ruled = ruleLimits(ctx.identity, collection.name, 'read') !== null;
      if (!ruled) assertPermission(ctx.identity, 'content:read');
      // A locale named: checked now (unknown, *, outside the caller's rule); its entries are answered in it.
      const locale = oneLocale(args.locale);
      if (locale !== undefined) entries.eventLocale(collection.name, locale, ctx.identity);
      return stream<Entry>(ctx, ENTRY_EVENT_NAMES[kind], (event) =>
        entryInLocale(kind, collection.name, ctx.identity, event, locale, entries),
      );
    },
    resolve: (entry: unknown) => entry,
  });
  return {
    [names.added]: field('added', `An entry of '${collection.name}' was created`),
    [names.updated]: field('updated', `An entry of '${collection.name}' was updated`),
    [names.deleted]: field('deleted', `An entry of '${collection.name}' was deleted`),
  };
}

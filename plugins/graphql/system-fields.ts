import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigMap,
} from 'graphql';
import { z } from 'zod';
import { type BusEvent, hasPermission, type Identity, assertPermission, ValidationError } from '../../kernel/sdk.js';
import { USER_EVENTS } from '../auth/public.js';
import { MEDIA_UPLOADED } from '../media/public.js';
import type { StreamFactory } from './collection-fields.js';
import { searchAcross, type CollectionsService as CollectionsPort, type EntriesService as EntriesPort } from '../content/public.js';
import type { GraphqlContext } from './graphql-context.js';
import { GraphQLJSON } from './json-scalar.js';
import type { CollectionNames } from './names.js';

const str = { type: new GraphQLNonNull(GraphQLString) };

const CollectionFieldInfo = new GraphQLObjectType({
  name: 'CollectionFieldInfo',
  fields: {
    name: str,
    type: str,
    label: { type: GraphQLString },
    required: { type: GraphQLBoolean },
    unique: { type: GraphQLBoolean },
    options: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
    collection: { type: GraphQLString },
    default: { type: GraphQLJSON },
  },
});

const CollectionInfo = new GraphQLObjectType({
  name: 'CollectionInfo',
  fields: {
    name: str,
    label: str,
    singular: str,
    fields: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(CollectionFieldInfo))) },
    typeName: {
      type: GraphQLString,
      description: "The GraphQL type of its entries; null when its names clash with another collection's and it is left out of the schema.",
    },
    listQuery: { type: GraphQLString, description: 'The query field listing its entries (posts), or null when left out.' },
  },
});

const SearchResult = new GraphQLObjectType({
  name: 'SearchResult',
  description: "A collection's best matches of a search (docs/features/search.md); each item carries _highlight.",
  fields: {
    collection: str,
    label: str,
    total: { type: new GraphQLNonNull(GraphQLInt) },
    items: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLJSON))) },
  },
});

const SEARCH_ARGS = z.object({
  q: z.string().trim().min(1).max(200),
  collections: z.array(z.string().max(64)).max(50).optional(),
  limit: z.number().int().min(1).max(50).default(5),
  locale: z.string().max(64).optional(),
});

const Media = new GraphQLObjectType({
  name: 'Media',
  fields: {
    _id: { type: new GraphQLNonNull(GraphQLID) },
    filename: str,
    mimeType: str,
    size: { type: new GraphQLNonNull(GraphQLFloat) },
    url: str,
  },
});

const User = new GraphQLObjectType({
  name: 'User',
  fields: { _id: { type: new GraphQLNonNull(GraphQLID) }, email: str, username: { type: GraphQLString }, role: str },
});

/** A tenant-scoped event (media and user events) for holders of the permission. */
const scoped =
  <K extends string>(key: K, permission: string, identity: Identity) =>
  (event: BusEvent) => {
    const p = event.payload as { tenantId?: string } & Record<K, unknown>;
    return p && p.tenantId === identity.tenantId && p[key] && hasPermission(identity, permission) ? p[key] : undefined;
  };

export function systemQueryFields(
  collections: CollectionsPort,
  included: CollectionNames[],
  entries?: EntriesPort,
): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  return {
    ...(entries ? { search: searchField(collections, entries) } : {}),
    collections: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(CollectionInfo))),
      description: 'The collections and their fields (content:read), with their names in this schema.',
      resolve(_root, _args, ctx) {
        assertPermission(ctx.identity, 'content:read');
        const byName = new Map(included.map((n) => [n.collection, n]));
        return collections
          .list()
          .map((c) => ({ ...c, typeName: byName.get(c.name)?.type ?? null, listQuery: byName.get(c.name)?.list ?? null }));
      },
    },
  };
}

/** `search(q, collections, limit, locale)`: as GET /api/search answers (content:read; every rule of the caller applies). */
function searchField(collections: CollectionsPort, entries: EntriesPort) {
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(SearchResult))),
    description: 'Full-text search across the collections you may read: the best matches of each (GET /api/search).',
    args: {
      q: { type: new GraphQLNonNull(GraphQLString) },
      collections: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
      limit: { type: GraphQLInt },
      locale: { type: GraphQLString },
    },
    async resolve(_root: unknown, args: Record<string, unknown>, ctx: GraphqlContext) {
      assertPermission(ctx.identity, 'content:read');
      const parsed = SEARCH_ARGS.safeParse(Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined)));
      if (!parsed.success) {
        const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
        throw new ValidationError(`Invalid search: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
      }
      const { collections: names, ...rest } = parsed.data;
      return (await searchAcross(entries, collections, ctx.identity, { ...rest, collections: names?.join(',') })).results;
    },
  };
}

export function systemSubscriptionFields(stream: StreamFactory): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  const field = (type: GraphQLObjectType, event: string, key: 'media' | 'user', permission: string, description: string) => ({
    type: new GraphQLNonNull(type),
    description: `${description} (${permission}; your tenant only).`,
    subscribe(_root: unknown, _args: unknown, ctx: GraphqlContext) {
      assertPermission(ctx.identity, permission);
      return stream(ctx, [event], (e) => scoped(key, permission, ctx.identity)(e));
    },
    resolve: (value: unknown) => value,
  });
  return {
    mediaUploaded: field(Media, MEDIA_UPLOADED, 'media', 'media:read', 'A file was uploaded'),
    userCreated: field(User, USER_EVENTS.create, 'user', 'user:manage', 'A user was created'),
    userUpdated: field(User, USER_EVENTS.update, 'user', 'user:manage', 'A user was changed (profile, blocked)'),
    userDeleted: field(User, USER_EVENTS.delete, 'user', 'user:manage', 'A user was deleted'),
  };
}

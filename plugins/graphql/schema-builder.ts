import { GraphQLObjectType, GraphQLSchema, assertValidSchema, type GraphQLFieldConfigMap } from 'graphql';
import type { Logger } from '../../kernel/sdk.js';
import type { GraphqlContribution } from './public.js';
import { mutationFields, queryFields, subscriptionFields, type StreamFactory } from './collection-fields.js';
import { buildCollectionTypes } from './collection-types.js';
import type {
  CollectionDefinition as CollectionLike,
  CollectionsService as CollectionsPort,
  EntriesService as EntriesPort,
} from '../content/public.js';
import { applyContributions } from './contributions.js';
import type { GraphqlContext } from './graphql-context.js';
import { planNames, takenTypes, type CollectionNames } from './names.js';
import { markShared } from './shared-fields.js';
import { systemQueryFields, systemSubscriptionFields } from './system-fields.js';

export interface SchemaDeps {
  collections: CollectionsPort;
  entries: EntriesPort;
  stream: StreamFactory;
  contributions: GraphqlContribution[];
  logger: Logger;
}

export interface BuiltSchema {
  schema: GraphQLSchema;
  included: CollectionNames[];
  clashes: Array<{ collection: string; name: string }>;
}

const root = (name: string, fields: GraphQLFieldConfigMap<unknown, GraphqlContext>) =>
  Object.keys(fields).length ? new GraphQLObjectType({ name, fields }) : undefined;

/**
 * The schema of these collections: per collection the object, list and input types, the list and
 * single queries, four mutations and three subscriptions; the `collections` query and the media and
 * user subscriptions always; then the contributions of other plugins. Valid with no collections.
 */
export function buildSchema(list: CollectionLike[], deps: SchemaDeps): BuiltSchema {
  const { included, clashes } = planNames(list);
  for (const clash of clashes)
    deps.logger.warn(clash, "collection left out of the GraphQL schema: a name clashes with another collection's");
  const byName = new Map(list.map((c) => [c.name, c]));
  const types = buildCollectionTypes(
    included.map((names) => ({ names, collection: byName.get(names.collection)! })),
    takenTypes(included),
    deps.entries,
  );
  const query: GraphQLFieldConfigMap<unknown, GraphqlContext> = systemQueryFields(deps.collections, included, deps.entries);
  const mutation: GraphQLFieldConfigMap<unknown, GraphqlContext> = {};
  const subscription: GraphQLFieldConfigMap<unknown, GraphqlContext> = systemSubscriptionFields(deps.stream);
  for (const t of types.values()) {
    Object.assign(query, queryFields(t, deps.entries));
    Object.assign(mutation, mutationFields(t, deps.entries));
    Object.assign(subscription, subscriptionFields(t, deps.stream, deps.entries));
  }
  const schema = new GraphQLSchema({
    query: root('Query', query),
    mutation: root('Mutation', mutation),
    subscription: root('Subscription', subscription),
  });
  assertValidSchema(schema);
  // Every built resolver reads the caller's permission context only: subscriptions of these fields may share execution.
  markShared(schema);
  return { schema: applyContributions(schema, deps.contributions, deps.logger), included, clashes };
}

// `@cms-kernel/sdk/content`: the content part of the client (createClient, collections, errors, the types of
// content), without the subscriptions helper. test/integration/sdk-package.test.ts bundles it and checks its size.
export {
  createClient,
  type ClientOptions,
  type CmsClient,
  type LoginResult,
  type GraphQLErrorItem,
  type SearchOptions,
  type SearchAnswer,
} from './client.js';
export type { CollectionClient, ListOptions, ReadOptions, WriteOptions, UpdateOptions } from './content.js';
export { CmsError, isCmsError, type ApiErrorCode, type ClientErrorCode, type CmsErrorCode, type CmsIssue } from './errors.js';
export type { RequestOptions, TransportOptions, QueryValue } from './transport.js';
export type { ApiRoutes, ApiSchemas, CallArgs, CallInput, RouteBody, RouteKey, RouteParams, RouteQuery, RouteResponse } from './routes.js';
export type {
  CollectionName,
  CollectionsOf,
  Condition,
  CreateInput,
  EntryMeta,
  EntryOf,
  EntryShape,
  EntryStatus,
  FieldName,
  Filter,
  Page,
  PopulatedOf,
  PopulatePath,
  TypeMap,
  UntypedMap,
  UpdateInput,
} from './types.js';

/**
 * The content plugin's public surface: what other plugins may depend on (event names and the shapes
 * of their payloads), its container keys for typed `scope.<key>` in route handlers, and the storage
 * codec of field values. Services are exported as types only.
 */
import type { PreviewLinks } from './preview-links.js';
import type { PublishSchedules } from './publish-schedules.js';
import type { CollectionsService } from './collections-service.js';
import type { EntriesService } from './entries-service.js';
import type { ContentClientFactory, LocalClient } from './local-client.js';

export type { ContentEvent, EntriesService, Entry, EntryChange } from './entries-service.js';
export type { CollectionsService, LoadedCollection } from './collections-service.js';
export type { FieldDefinition } from './field-types.js';
/**
 * How field values are stored in a collection's table (column names and conversions), for plugins that
 * read or write rows directly inside a data-operation transaction (data migrations, backups).
 */
export { columnName, fromColumn, toColumn, valueSchema, RESERVED_FIELD_NAMES } from './field-types.js';
/** The naming rules of collections and fields, and the words for a name that breaks them (the admin UI bundles names.ts). */
export {
  COLLECTION_NAME,
  FIELD_NAME,
  FIELD_NAME_RULE,
  COLLECTION_NAME_RULE,
  NAME_MAX,
  fieldNameProblem,
  collectionNameProblem,
} from './names.js';

/** Published on the event bus (every instance) when any collection's schema changes. */
export const COLLECTIONS_CHANGED = 'content:collections-changed';
/** Entry events: payload ContentEvent. */
export const ENTRY_EVENTS = { create: 'on:create', update: 'on:update', delete: 'on:delete', statusChange: 'on:status_change' } as const;

/** Its container keys, so `scope.collections`, `scope.entries` and `scope.contentClient` are typed in route handlers. */
declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    collections: CollectionsService;
    entries: EntriesService;
    contentClient: ContentClientFactory;
    /** Request-scoped: the content client acting as the request's caller (currentUser). */
    content: LocalClient;
    /** Scheduled publishing (publish-schedules.ts). */
    publishSchedules: PublishSchedules;
    previewLinks: PreviewLinks;
  }
}

/** Relation order of collections created together (restore, content import, configuration promotion). */
export { creationOrder, relationTargets } from './relation-order.js';

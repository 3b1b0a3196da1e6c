/**
 * The content plugin's public surface: what other plugins may depend on (event names and the shapes
 * of their payloads), its container keys for typed `scope.<key>` in route handlers, and the storage
 * codec of field values. Services are exported as types only.
 */
import { defineEvent } from '../../kernel/sdk.js';
import type { PreviewLinks } from './preview-links.js';
import type { PublishSchedules } from './publish-schedules.js';
import type { CollectionsService } from './collections-service.js';
import type { ComponentsService } from './components-service.js';
import type { LocalesService } from './locales-service.js';
import type { AccessRuleChecks } from './rule-checks.js';
import type { ContentEvent, EntriesService } from './entries-service.js';
import type { ContentClientFactory, LocalClient } from './local-client.js';

export type { ContentEvent, EntriesService, Entry, EntryChange } from './entries-service.js';
export type { CollectionsService, LoadedCollection } from './collections-service.js';
export type { FieldDefinition } from './field-types.js';
export type { CollectionInfo, ContentClientFactory, LocalClient } from './local-client.js';
/**
 * The hooks of `entries.hooks` (entry-hooks.ts): publish guards asked before an entry becomes published on every write
 * path, and decorators of entry answers (review stages add `_stage` and refuse publishing outside the publish stage).
 */
export type { EntryHooks, PublishCheck, PublishGuard, EntryDecorator } from './entry-hooks.js';
/**
 * How field values are stored in a collection's table (column names and conversions), for plugins that
 * read or write rows directly inside a data-operation transaction (data migrations, backups).
 */
export { columnName, fromColumn, toColumn, valueSchema, RESERVED_FIELD_NAMES } from './field-types.js';
/** The component definitions a component or blocks field of a loaded collection carries (GraphQL builds its types from them). */
export { resolvedComponents } from './component-values.js';
/** A field list whose component and blocks fields carry the given definitions (a package's collections, before they exist here). */
export { resolveFields } from './component-resolution.js';
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
export const COLLECTIONS_CHANGED = defineEvent<{ name: string }>('content:collections-changed');
/** A component was created, changed or deleted (any instance); every instance reads them again. */
export const COMPONENTS_CHANGED = defineEvent<{ name: string }>('content:components-changed');
/** A locale was created, changed or deleted (any instance); every instance reads them again. */
export const LOCALES_CHANGED = defineEvent<{ code: string }>('content:locales-changed');
/** Entry events: payload ContentEvent. */
export const ENTRY_EVENTS = {
  create: defineEvent<ContentEvent>('on:create'),
  update: defineEvent<ContentEvent>('on:update'),
  delete: defineEvent<ContentEvent>('on:delete'),
  statusChange: defineEvent<ContentEvent>('on:status_change'),
  /** An entry became published (created published, or its status moved to published); payload as on:status_change. */
  publish: defineEvent<ContentEvent>('on:publish'),
} as const;
/**
 * A collection was created, changed or deleted (after COLLECTIONS_CHANGED, on the instance that made the
 * change). Collections are shared by every tenant: the payload names the collection and no tenant.
 */
export const COLLECTION_EVENTS = {
  create: defineEvent<{ collection: string }>('on:collection_create'),
  update: defineEvent<{ collection: string }>('on:collection_update'),
  delete: defineEvent<{ collection: string }>('on:collection_delete'),
} as const;

/** Its container keys, so `scope.collections`, `scope.entries` and `scope.contentClient` are typed in route handlers. */
declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    collections: CollectionsService;
    /** Reusable components (components-service.ts). */
    components: ComponentsService;
    /** Content locales (locales-service.ts). */
    locales: LocalesService;
    entries: EntriesService;
    contentClient: ContentClientFactory;
    /** Request-scoped: the content client acting as the request's caller (currentUser). */
    content: LocalClient;
    /** Scheduled publishing (publish-schedules.ts). */
    publishSchedules: PublishSchedules;
    previewLinks: PreviewLinks;
    /** Checks roles' rules against the content model when they are saved (rule-checks.ts). */
    accessRuleChecks: AccessRuleChecks;
  }
}

/** The shapes other plugins (GraphQL) read: a collection's definition, its fields, entries, list queries. */
export type { CollectionDefinition } from './collection-schema.js';
export type { FieldType } from './field-types.js';
export type { EntryList } from './entries-service.js';
export type { ListQuery } from './list-query.js';
/** The list query of the REST route (page, limit, sort, search, status, filter): GraphQL lists parse their arguments with it. */
export { listQuerySchema } from './list-query.js';
export type { EntryStatus } from './entry-values.js';
/** The statuses of an entry (draft, published, archived). */
export { STATUSES as ENTRY_STATUSES } from './entry-values.js';
/** Relation order of collections created together (restore, content import, configuration promotion). */
export { creationOrder, relationTargets } from './relation-order.js';
/** The components a field list uses (component and blocks fields), and the service that keeps them. */
export { componentsUsedBy } from './components-service.js';
export type { ComponentsService, ComponentDefinition } from './components-service.js';

/** The field types a collection schema may use (content packages check incoming schemas against them), and each one's admin widgets (the first is the default). */
export { FIELD_TYPES, FIELD_WIDGETS } from './field-types.js';
/** The inverse a field of a read view stands for (a read-only list of the entries pointing here), or undefined. */
export { inverseOf } from './relation-inverse.js';
/** Content locales: the service (configuration of the installation), their answer shape and the canonical form of a code. */
export type { LocalesService, LocaleDefinition } from './locales-service.js';
export { canonicalLocale, checkFallbacks } from './locales-service.js';
/** Entries' versions in other locales for plugins that move entries (content packages, content sync). */
export {
  defaultLocaleCode,
  readEntryLocaleVersions,
  readDefaultLocaleTimes,
  replaceEntryLocaleVersions,
  writeDefaultLocaleTime,
  removeEntryLocaleVersions,
  type EntryLocaleVersion,
} from './entry-locale-rows.js';
/**
 * Full-text search (docs/features/search.md): the contract of a search engine (EntriesService.search; a plugin
 * replaces the built-in SQL one with entries.useSearchEngine), and the search across collections that GET /api/search
 * and GraphQL's `search` answer.
 */
export type { SearchEngine, SearchRequest, SearchMatch } from './search-engine.js';
export { searchAcross, type SearchAcrossAnswer, type SearchAcrossQuery } from './search-across.js';

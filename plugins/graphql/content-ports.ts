/**
 * The few shapes of the content plugin this plugin uses, declared here (plugins meet only through the
 * container keys `collections` and `entries`, never through each other's files).
 */
import type { Identity } from '../../kernel/sdk.js';

export type FieldType = 'text' | 'richtext' | 'markdown' | 'number' | 'boolean' | 'date' | 'select' | 'media' | 'relation' | 'json';
export const ENTRY_STATUSES = ['draft', 'published', 'archived'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

export interface CollectionField {
  name: string;
  type: FieldType;
  label?: string;
  required?: boolean;
  unique?: boolean;
  indexed?: boolean;
  default?: unknown;
  options?: string[];
  collection?: string;
}

export interface CollectionLike {
  name: string;
  label: string;
  singular: string;
  fields: CollectionField[];
  version: number;
}

export type Entry = Record<string, unknown> & { _id: string; status: EntryStatus };

export interface ListQuery {
  page: number;
  limit: number;
  sort?: string;
  search?: string;
  status?: EntryStatus;
  filter?: string;
}

export interface EntryList {
  items: Entry[];
  total: number;
  page: number;
  limit: number;
}

/** Container key `collections`. */
export interface CollectionsPort {
  list(): CollectionLike[];
  get(name: string): Promise<CollectionLike>;
}

/** Container key `entries` (it validates and scopes by tenant; permissions are the caller's job). */
export interface EntriesPort {
  list(name: string, query: ListQuery, identity: Identity): Promise<{ value: EntryList; cached: boolean }>;
  get(name: string, id: string, identity: Identity): Promise<Entry>;
  create(name: string, body: unknown, identity: Identity): Promise<Entry>;
  update(name: string, id: string, body: unknown, identity: Identity): Promise<Entry>;
  remove(name: string, id: string, identity: Identity): Promise<void>;
}

/** Payload of on:create, on:update, on:delete and on:status_change. */
export interface ContentEventPayload {
  tenantId: string;
  collection: string;
  entry: Entry;
  userId: string | null;
  previousStatus?: EntryStatus;
}

/** The events the content plugin publishes (a collection schema changed; entry events), defined once in its public surface. */
export { COLLECTIONS_CHANGED, ENTRY_EVENTS } from '../content/public.js';

/**
 * The minimal shapes of the content and media plugins' in-process SDKs this plugin uses (resolved from
 * the container as `contentClient` and `mediaClient`; never imported from those plugins).
 */
import type { Readable } from 'node:stream';
import type { Transaction } from 'sequelize';
import type { PreparedRow } from './prepare-batch.js';
import type { Identity } from '../../kernel/sdk.js';
import type { ContentFieldType } from './field-names.js';

export interface FieldInfo {
  name: string;
  type: ContentFieldType;
  required?: boolean;
  collection?: string;
}
export interface CollectionInfo {
  name: string;
  fields: FieldInfo[];
  /** The schema version (bumped by every change of the fields). */
  version: number;
}
export interface EntryRef {
  _id: string;
}
export interface EntriesPort {
  create(data: Record<string, unknown>): Promise<EntryRef>;
  /** One transaction, all or nothing (at most 100). */
  createMany(data: Array<Record<string, unknown>>): Promise<EntryRef[]>;
  update(id: string, data: Record<string, unknown>): Promise<EntryRef>;
  /**
   * Rows prepared by the importers' worker task (prepare-task.ts), created in one short transaction with
   * their revisions (at most 1,000); `inTransaction` writes the ledger in the same transaction. Throws
   * (nothing written) on a changed schema or a unique violation.
   */
  insertPrepared(
    batch: { version: number; fields: string[]; rows: PreparedRow[] },
    hooks?: { inTransaction?: (transaction: Transaction, entries: EntryRef[]) => Promise<void> },
  ): Promise<EntryRef[]>;
  /** Which of these entry ids still exist (at most 1,000). */
  existing(ids: string[]): Promise<Set<string>>;
  list(options: { limit: number }): Promise<{ total: number }>;
  /** One entry with its field values. */
  get(id: string): Promise<EntryRef & Record<string, unknown>>;
  /** Deletes these entries (at most 500); answers how many were removed. */
  removeMany(ids: string[]): Promise<number>;
}
export interface ContentPort {
  collections: {
    list(): Promise<CollectionInfo[]>;
    get(name: string): Promise<CollectionInfo>;
    create(definition: { name: string; label?: string; fields: Array<Record<string, unknown>> }): Promise<CollectionInfo>;
    remove(name: string): Promise<void>;
  };
  entries(collection: string): EntriesPort;
}
export type ContentClientFactory = (identity?: Identity) => ContentPort;

export interface MediaPort {
  upload(
    filename: string,
    body: Readable | Buffer,
    options?: { folderId?: string | null; private?: boolean },
  ): Promise<{ _id: string; url: string }>;
}
export type MediaClientFactory = (identity?: Identity) => MediaPort;

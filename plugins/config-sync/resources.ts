/**
 * The resource types of configuration promotion, each a small adapter: how to read the database
 * side of one tenant (through the owning plugin's container service where it offers a reader), and how
 * to create, update and delete one resource inside the apply transaction (rows written with the owning
 * plugin's models or its table, always with `transaction`), plus which caches to drop after commit.
 *
 * Types, in dependency order: locale, component, collection, role, theme, setting, dashboard.
 * - locale: one resource `locales` = {locales: [...]}, the installation's whole locale list (locale-adapter.ts),
 *   replaced at once through the content plugin's locales service outside the transaction; never deleted.
 * - component: a reusable component (label, fields; component-adapter.ts). Written through the content plugin's
 *   components service outside the transaction, undone by the opposite change; never renamed; never deleted
 *   while a collection or component uses it.
 * - collection: collection schemas (name, label, singular, fields). Changing one creates, alters or drops a
 *   real table through the content plugin's migration ledger (DDL: it commits implicitly on MariaDB and
 *   cannot run under the SQLite write gate of the apply transaction), so its operations are planned with
 *   `outsideTransaction: true` and undone by the opposite schema change (see ConfigSyncService.apply).
 *   Never renamed; never deleted while it has entries or is the target of another collection's relation.
 * - role: a role and its permissions. `admin` is never deleted; a role some user holds is never deleted.
 * - theme: a named theme (config, presetSource); active/default flags stay per environment; the active
 *   and the default theme are never deleted.
 * - setting: a public setting (is_private = false) except DASHBOARD_DEFAULT_WIDGETS; private settings
 *   (credentials and keys) are never read, exported or written. Settings are never deleted (the setup
 *   catalogue would only seed them again).
 * - dashboard: one resource `default-layout` = {widgets} (the DASHBOARD_DEFAULT_WIDGETS setting). Never deleted.
 */
import type { Transaction } from 'sequelize';

export const RESOURCE_TYPES = ['locale', 'component', 'collection', 'role', 'theme', 'setting', 'dashboard'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export interface DbResource {
  type: ResourceType;
  name: string;
  /** The database's own stable id where it has one (theme id, collection uid): matched against a file's uuid first. */
  uuid: string | null;
  /**
   * The resource's own id in this database, exported as a file's `externalId` and used as `local_id` of
   * its identity link: collection uid, role name, theme id, setting key, `default-layout`.
   */
  id: string;
  data: Record<string, unknown>;
  /** Why this resource may not be deleted, or null. */
  protectedReason: string | null;
  /** collection: how many entries it holds (not part of the snapshot: data never is). */
  entries?: number;
}

export interface ResourceAdapter {
  type: ResourceType;
  label: string;
  /** Null when the type can be applied; otherwise why it is planned as skip. */
  readOnlyReason: string | null;
  /**
   * True when create/update/remove cannot run inside the apply transaction (DDL): they are called without
   * one, planned with `outsideTransaction: true`, and the service returns an undo for each.
   */
  outsideTransaction?: boolean;
  /** Why updating `current` to a file's data is refused (blocks the plan), or null. */
  updateIssue?(current: DbResource, name: string, data: Record<string, unknown>): string | null;
  /** False when the owning plugin is absent (settings without the setup plugin). */
  available(): boolean;
  read(tenantId: string): Promise<DbResource[]>;
  /** A problem with a file's data (blocks the plan), or null. */
  check(data: unknown): string | null;
  /** Creates the resource; answers its own id (DbResource.id). */
  create(tenantId: string, name: string, uuid: string, data: Record<string, unknown>, t?: Transaction): Promise<string>;
  /** Updates (and may rename) the resource; answers its own id afterwards. */
  update(tenantId: string, current: DbResource, name: string, data: Record<string, unknown>, t?: Transaction): Promise<string>;
  remove(tenantId: string, current: DbResource, t?: Transaction): Promise<void>;
  /** Drops the owning plugin's caches (after commit). */
  invalidate(tenantId: string, names: string[]): Promise<void>;
}

/** The adapters of the types (resource-adapters.ts). */
export { buildAdapters } from './resource-adapters.js';

/**
 * The shapes of configuration promotion: sync files and bundles, their problems, the plan input and an
 * operation's payload, identity links, and the checksum every side agrees on (the canonical JSON of
 * `data`, SHA-256). See config-sync-service.ts for the layout of the sync folder.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { Sequelize } from 'sequelize';
import type { IdentityLinks } from './identity-links.js';
import type { RoleChanges } from './role-rules.js';
import type { DbResource, ResourceAdapter, ResourceType } from './resources.js';
import type { SyncSources } from './sync-sources.js';

export const canonical = (value: unknown): string => stringify(value) ?? 'null';
export const checksumOf = (data: unknown): string => createHash('sha256').update(canonical(data)).digest('hex');

/** The `format` member of a configuration bundle (GET/POST /api/config/bundle). */
export const BUNDLE_FORMAT = 'cms-config-bundle';
/** An uploaded bundle can be planned against for one hour. */
export const BUNDLE_TTL_MS = 60 * 60 * 1000;
/** The largest bundle an upload may carry. */
export const BUNDLE_MAX_BYTES = 16 * 1048576;
/** At most this many resources in one bundle. */
export const BUNDLE_MAX_FILES = 10_000;

export interface SyncFile {
  uuid: string;
  type: ResourceType;
  name: string;
  checksum: string;
  data: Record<string, unknown>;
  /** The resource's own id in the system that exported it (see DbResource.id); absent in older files. */
  externalId?: string;
  /** Path relative to the sync folder (`<type>/<encoded name>.json`); a bundle entry gets the same path. */
  file: string;
  /** Edited by hand on purpose: the file's checksum was removed (null or ""), so no checksum is checked. */
  unsealed?: boolean;
}

export interface FileProblem {
  file: string;
  problem: string;
}

export type ItemState = 'same' | 'changed' | 'onlyInDatabase' | 'onlyInFiles';

/** `<type>/<file name>` (or `<type>/<name>`) -> a database resource's name of that type, or null (= new). */
export type ConfigMappings = Record<string, string | null>;

export interface ConfigInput {
  types: ResourceType[];
  /** Plan against an uploaded bundle instead of the files on disk. */
  uploadId?: string;
  mappings?: ConfigMappings;
}

/** What one operation of a config plan carries (stored with the plan; never a secret: private settings are never read). */
export interface ConfigPayload {
  uuid: string;
  name: string;
  /** The source system's id of the resource (stored in the identity link on create/update). */
  externalId?: string | null;
  /** The database resource's current name (update/delete). */
  dbName?: string;
  /** The database resource's own id (theme id) for update/delete. */
  dbUuid?: string | null;
  /** The database resource's own id (DbResource.id) for update/delete. */
  dbId?: string;
  checksum?: string;
  data?: Record<string, unknown>;
  /** A role's operation: the permissions and rules it adds and removes (role-rules.ts), shown in the plan. */
  changes?: RoleChanges;
}

/** How a file was matched to a database resource. */
export type MatchLevel = 'syncId' | 'externalId' | 'name' | 'mapping';

/** A file and the database resource it matches (either may be absent). */
export interface Pair {
  file?: SyncFile;
  db?: DbResource;
  level?: MatchLevel;
  /** Several database candidates and no mapping: the plan is blocked until a mapping resolves it. */
  candidates?: Array<{ db: DbResource; level: MatchLevel }>;
}

/** The identity row of one database resource (table cms_config_sync_links). */
export interface IdentityLink {
  type: ResourceType;
  localId: string;
  syncId: string;
  externalId: string | null;
}

/** Where the files of a plan or a status come from: the sync folder on disk or an uploaded bundle. */
export interface FileSource {
  files: SyncFile[];
  problems: FileProblem[];
  /** Prefix of the file paths in messages: `config/sync/` or `bundle:`. */
  label: string;
}

export interface BundleFile {
  uuid: string;
  type: ResourceType;
  name: string;
  checksum: string;
  externalId?: string;
  data: Record<string, unknown>;
}

export interface Bundle {
  format: typeof BUNDLE_FORMAT;
  version: 1;
  files: BundleFile[];
}

export class BundleError extends Error {}
export class MappingError extends Error {
  constructor(
    message: string,
    readonly issues: Array<{ path: string; message: string }>,
  ) {
    super(message);
  }
}
export class UploadNotFound extends Error {}

/** A sync file name: the encoded resource name (dots encoded too), `.json`. */
export const safeName = (name: string) => encodeURIComponent(name).replace(/\./g, '%2E') + '.json';

/** A syncId derived from the type and own id, for a resource that never had one (stable, uuid-shaped). */
export const derivedSyncId = (type: string, id: string): string => {
  const h = createHash('sha256').update(`config-sync\u0000${type}\u0000${id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** What the parts of the service (plan, apply, export) share: the adapters, the sources and the links. */
export interface ConfigSyncCore {
  readonly adapters: Record<ResourceType, ResourceAdapter>;
  readonly sequelize: () => Sequelize;
  readonly sources: SyncSources;
  readonly identity: IdentityLinks;
  folder(tenantId: string): string;
  types(): ResourceType[];
  readDatabase(tenantId: string, types: ResourceType[]): Promise<DbResource[]>;
}

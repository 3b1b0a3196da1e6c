/**
 * The content-packages plugin's public surface: the `.svelty-package` format (a content package:
 * manifest, collection schemas, one NDJSON file of entries per collection, a media manifest and
 * optionally the media files, SHA-256 checksums), and the container key `contentPackages` through
 * which the content-sync plugin builds packages for a peer, hands received packages to the import
 * domain and records what both sides agreed on. Two data-operation domains live in this plugin:
 * `content-export` and `content-import` (audit domain `content-package`).
 */
import type { Identity } from '../../kernel/sdk.js';
import type { DataDomainDefinition } from '../data-ops/public.js';

export const PACKAGE_FORMAT = 'svelty-package';
export const PACKAGE_FORMAT_VERSION = 1;
/** File name suffix of a package archive (a gzip-compressed tar of the package folder). */
export const PACKAGE_SUFFIX = '.svelty-package';
/** Data-operation domain ids (routes /api/content-export and /api/content-import). */
export const EXPORT_DOMAIN = 'content-export';
export const IMPORT_DOMAIN = 'content-import';
/** Per-conflict choices of an import plan (`resolutions`) and the two sides a conflict warning carries (`conflict`). */
export { conflictResolutionsSchema, type ConflictDetail } from './conflicts.js';

/**
 * manifest.json. Paths are relative to the package root and use `/`:
 *   manifest.json, checksums.sha256 (sha256sum format, every other file),
 *   schemas/<collection>.json (the collection definition as GET /api/collections/:name/schema gives it),
 *   content/<collection>.ndjson (one PackageEntry per line, ordered by source id),
 *   media/manifest.ndjson (one PackageMedia per line), media/files/<sha256> (with includeMedia).
 */
export interface PackageManifest {
  format: typeof PACKAGE_FORMAT;
  version: number;
  createdAt: string;
  source: {
    /** The exporting installation's stable id (persistent across restarts, same on every instance of one database). */
    installationId: string;
    kernelVersion: string;
    dialect: string;
    /** Set when the package was built for one peer (content sync): entries carry `baseChecksum`. */
    peer?: string;
  };
  selection: ExportSelection;
  collections: Array<{ name: string; entries: number; file: string; schemaFile: string }>;
  media: { records: number; file: string; includesFiles: boolean; bytes: number };
  /** The components the collections use (components.json); absent in packages made before components. */
  components?: { file: string; count: number };
  /** The source's default locale (the values of entries' `fields`); absent in packages made before locales. */
  locales?: { default: string };
  files: Array<{ path: string; size: number; sha256: string }>;
}

/** What an export takes (POST /api/content-export/validate|plan body). */
export interface ExportSelection {
  collections: string[];
  includeMedia?: boolean;
  /** Only entries with this status. */
  status?: 'draft' | 'published' | 'archived';
  /** Only entries updated at or after / before (ISO dates). */
  updatedFrom?: string;
  updatedTo?: string;
  /** Field equality filters per collection, as the list query's `filter` takes them. */
  filters?: Record<string, Record<string, unknown>>;
}

/**
 * One line of content/<collection>.ndjson. Field values are as the entries API gives them, except:
 * a relation field's value is `{"$ref": {"collection", "syncId"}}` (re-pointed to the target's id on
 * import), a media field's value is `{"$media": "<source media id>"}` (matched on import by the
 * media manifest's sha256, or carried over from media/files).
 */
export interface PackageEntry {
  syncId: string;
  /** The entry's id on the source (an external id of the source system for the target). */
  sourceId: string;
  slug: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  /** Importer links on the source: the record this entry was imported from (identity rule 2). */
  externalIds?: Array<{ format: string; entity: string; id: string }>;
  fields: Record<string, unknown>;
  /**
   * The entry's versions in other locales than the source's default: locale -> {status, fields} (only the localized
   * fields the version has, in the same package form); absent when it has none.
   */
  locales?: Record<string, { status: string; fields: Record<string, unknown> }>;
  /**
   * When each locale's localized values last changed (the entries API's `_localeUpdatedAt`: ISO 8601 per locale, the
   * source's default and each version's); entries of collections with localized fields only. Not in the checksum.
   */
  localeUpdatedAt?: Record<string, string>;
  /** SHA-256 (hex) of the canonical JSON of {slug, status, fields} (and `locales` when present) as written in this line. */
  checksum: string;
  /** Sync packages only: the checksum both sides last agreed on (from the builder's ledger for the peer). */
  baseChecksum?: string;
}

/** One line of media/manifest.ndjson. */
export interface PackageMedia {
  id: string;
  filename: string;
  mimeType: string;
  size: number;
  sha256: string;
  /** `media/files/<sha256>` when the file is in the package. */
  file?: string;
  /** The storage path on the source (`/files/<path>` there): what rich-text URLs of the entries name. */
  path?: string;
  folder?: string | null;
  meta?: Record<string, unknown>;
}

/** What validating a received package answers (POST /api/content-import/validate `data`). */
export interface ImportValidation {
  uploadId: string;
  valid: boolean;
  problems: string[];
  manifest: PackageManifest | null;
}

/** Container key `contentPackages`: what the content-sync plugin uses. */
export interface ContentPackagesService {
  /** This installation's stable id (PackageManifest.source.installationId). */
  installationId(): Promise<string>;
  /**
   * Builds a package of the selection (streamed, bounded memory) into the plugin's packages folder.
   * With `peer`, each entry carries `baseChecksum` from this installation's ledger for that peer.
   */
  build(
    selection: ExportSelection,
    identity: Identity,
    options?: { peer?: string; onProgress?: (processed: number, total: number) => void },
  ): Promise<{ packageId: string; archivePath: string; size: number; sha256: string; manifest: PackageManifest }>;
  /** Takes a received archive file (moved into the import staging) and validates it as an upload. */
  receive(archivePath: string, identity: Identity): Promise<ImportValidation>;
  /**
   * Records, for a peer, the checksums both sides now agree on (after a successful push; imports record
   * their own). Conflict = target changed since the base and source changed since the base.
   */
  recordBases(tenantId: string, peer: string, items: Array<{ collection: string; syncId: string; checksum: string }>): Promise<void>;
  /** The import domain's definition, for domains that apply a received package inside their own lifecycle (a pull). */
  importDomain: DataDomainDefinition<unknown>;
}

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    contentPackages: ContentPackagesService;
  }
}

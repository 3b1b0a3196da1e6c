import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'koa';
import type { Readable } from 'node:stream';
import type { ZodType } from 'zod';
import type { AdminNavGroup } from '../admin-nav.js';
import type { Identity } from '../http/identity.js';
import type { Logger } from '../logger.js';

/**
 * Storage driver: chosen by MEDIA_STORAGE_TYPE (its id). Paths are relative (`<tenant>/2026/11/x.png`,
 * forward slashes, no `..`) and the driver places them under MEDIA_FOLDER (a folder or a key prefix).
 * A path the driver cannot confine throws (the media plugin answers 400).
 */
export interface StorageDriver {
  id: string;
  /** 'local': /files/ streams the file itself (ETag, Range); 'remote': /files/ redirects to publicUrl. */
  kind: 'local' | 'remote';
  put(path: string, body: Readable | Buffer, meta?: { mimeType?: string; size?: number }): Promise<{ size: number; etag?: string }>;
  /** The bytes, or the inclusive byte range [start, end]. */
  get(path: string, range?: { start: number; end: number }): Promise<Readable>;
  head(path: string): Promise<{ size: number; etag?: string; mimeType?: string; modifiedAt?: Date } | null>;
  /** Local drivers move the file to their trash; remote drivers delete it directly. */
  delete(path: string): Promise<void>;
  /** Where a browser fetches the file directly (remote drivers; local drivers answer `/files/<path>`). */
  publicUrl(path: string): string;
  /** Local trash: what is in it, put a file back, empty it (all, or one path). */
  listTrash?(): Promise<Array<{ path: string; size: number; deletedAt: Date }>>;
  restore?(path: string): Promise<void>;
  purge?(path?: string): Promise<number>;
  /** A quick reachability check for the health endpoint. */
  check?(): Promise<void>;
  /**
   * Local drivers may offer this for serving: the file opened once (one open and one fstat instead of
   * head() then get()), null when there is none. The caller takes stream() once, or calls close().
   */
  openRead?(path: string): Promise<OpenedFile | null>;
}

/** A file opened for serving (StorageDriver.openRead): what head() answers, and its bytes. */
export interface OpenedFile {
  size: number;
  etag: string;
  modifiedAt: Date;
  /** The bytes, or the inclusive range [start, end] (within size); the stream owns the descriptor from then on. */
  stream(range?: { start: number; end: number }): Readable;
  /** Releases the descriptor when no stream was taken (a 304, a HEAD, an empty file); a no-op after stream(). */
  close(): void;
}

/**
 * What the importers plugin learns about an upload once (in the worker pool, reading the whole file,
 * nesting depth bounded) and hands to every format's detect(): structure, not a guess from a prefix.
 */
export interface ImportProfile {
  /** The outer wrapping: a plain file, or a tar archive (gzip-compressed or not). */
  container: 'plain' | 'tar';
  /** Text encoding of a plain text file (`utf-8`, `utf-16le`, `windows-1252`...), BOM seen or not. */
  encoding: string;
  bom: boolean;
  /** What a plain file (or the archive's main document) is. */
  kind: 'json' | 'ndjson' | 'xml' | 'delimited' | 'binary' | 'unknown';
  /**
   * Only the start of the file was profiled (XML, NDJSON or delimited text over 256 KiB): counts (rows,
   * lines) are of that part and `xml.wellFormed` says "so far"; the parse task reads the whole file.
   */
  partial?: boolean;
  json?: {
    root: 'array' | 'object' | 'scalar';
    /** Keys of the root object (first 200). */
    topKeys: string[];
    /** Where the records are: '' for a root array, else the root key holding the first array of objects (`data`). */
    recordsPath: string | null;
    /** Number of records at recordsPath. */
    recordCount: number;
    /** Union of the keys of the first 50 records. */
    recordKeys: string[];
    /** Distinct values of the records' `type` field (Drupal JSON:API `node--article`), first 50. */
    recordTypes: string[];
    /** The deepest nesting seen (the parse stops past the limit). */
    maxDepth: number;
  };
  ndjson?: { lines: number; recordKeys: string[]; recordTypes: string[] };
  xml?: {
    root: string;
    /** prefix -> namespace URI declared on the root and its first children (`wp` -> `http://wordpress.org/export/1.2/`). */
    namespaces: Record<string, string>;
    /** Element names (with prefix) seen in the first 200 elements. */
    elements: string[];
    /** A DOCTYPE was present (it is never resolved). */
    doctype: boolean;
    wellFormed: boolean;
  };
  delimited?: { delimiter: string; header: string[]; rows: number };
  /** tar container: entry paths (first 2000) and the ones refused (`..`, absolute, links). */
  archive?: { entries: string[]; rejected: string[]; jsonEntries: Record<string, ImportProfile['json']> };
}

export interface ImportSample {
  filename: string;
  size: number;
  /** The first 64 KiB of the upload (gzip-compressed bytes for an archive). */
  head: Buffer;
  profile: ImportProfile;
}

/** One normalised record written by a parse task: one JSON object per line of the spool file. */
export interface ImportedEntity {
  /** Plural entity name; the default target collection (`posts`, `pages`, `attachments`, `products`...). */
  entity: string;
  /** Stable id in the source: a re-import updates the entry recorded for it instead of duplicating. */
  externalId: string;
  /** Field values: string, number, boolean, null, arrays and plain objects (depth bounded). */
  data: Record<string, unknown>;
  /** Publication state when the source has one. */
  status?: 'draft' | 'published';
  /** Attachments: where the bytes are (a file the task extracted under workDir, or a remote URL). */
  file?: { path?: string; url?: string; filename: string; mimeType?: string };
  /** Source line (CSV, NDJSON) or record number, for warnings. */
  line?: number;
}

/** Value kinds a parse task reports per field; scaffold mode maps them to collection field types. */
/** `longtext`: plain text too long or multi-line for a text field (never sanitised: not rich text). */
export type ImportFieldKind = 'text' | 'longtext' | 'richtext' | 'number' | 'boolean' | 'date' | 'json' | 'media' | 'relation';

/** What a parse task returns (as TaskResult data) after writing the spool file. */
export interface ImportParseSummary {
  counts: Record<string, number>;
  /** entity -> field -> kind, from the values seen. */
  fields: Record<string, Record<string, ImportFieldKind>>;
  warnings: Array<{ message: string; line?: number }>;
  /** Reasons the import cannot run at all (an empty or unreadable file...). */
  blockedReasons: string[];
  /** WXR: the custom field (postmeta) keys that are not WordPress internals. */
  acfFields?: string[];
  /**
   * References between the source's records the run resolves into the target's ids after writing them: a
   * record of `entity` names, in `field`, the external id of a `to` record; the run stores the `to` record's
   * entry id (`as: 'entry'`) or its media id (`as: 'media'`) in the added field `into`. `field` keeps the
   * source's value exactly.
   */
  links?: Array<{ entity: string; field: string; to: string; as: 'entry' | 'media'; into: string }>;
  /** WXR: shortcodes (`[gallery]`, `[caption]`...) found in the content, name -> occurrences; imported as written, never expanded. */
  shortcodes?: Record<string, number>;
  /** Records the parser could not read or refused and did not write (bad NDJSON lines, unreadable CSV records, CSV strict mode, too deep), per entity: the run counts them as failed. */
  refused?: Record<string, number>;
  /**
   * XML formats: false when the whole document was not well-formed (repaired or not). A partial profile
   * (see ImportProfile.partial) only saw the start; this corrects its `xml.wellFormed` before scoring.
   */
  wellFormed?: boolean;
}

/** Input of a parse task (a named export of the format's worker file). */
export interface ImportParseInput {
  /** The uploaded file. */
  path: string;
  filename: string;
  /** The job's folder: the only place the task may write (archive members it extracts go here). */
  workDir: string;
  /** Where to write the entities, one JSON object (ImportedEntity) per line. */
  spoolPath: string;
  profile: ImportProfile;
  /** Largest nesting depth a record may have; deeper input is refused with a warning. */
  maxDepth: number;
  /** Format hint options from the request (reserved). */
  options?: Record<string, unknown>;
}

/**
 * Import format: detects an upload from its profile and parses it (in the worker pool) into normalised
 * entities. A plugin adds one with one folder: plugin.json, index.ts (registers this) and a worker file.
 */
export interface ImportFormat {
  format: string;
  label: string;
  description?: string;
  extensions: string[];
  features: string[];
  /** 0 (not this format) to 1 (certainly this format), from the content; the extension only nudges. */
  detect(sample: ImportSample): number;
  /** Name of the worker task (an export of taskFile) that writes the spool file and returns ImportParseSummary. */
  parseTask: string;
  /** Absolute path of the compiled worker module holding parseTask. */
  taskFile: string;
}

/** Dashboard widget: the folder's widget.json plus its data endpoint and permission. */
export interface WidgetDefinition {
  id: string;
  name: string;
  license: 'freemium' | 'paid';
  endpoint: string;
  permission: string;
  component: string;
  description?: string;
  /** monitoring | logs | content | static (the widget folders use these). */
  category?: string;
  /** An icon name for the admin UI. */
  icon?: string;
  version?: string;
  /** Grid size the admin UI gives a newly added widget. */
  defaultSize?: { w: number; h: number };
}

export type SafetyMode = 'add' | 'merge' | 'mirror' | 'replace';

/** Data-operation domain: one plan-first lifecycle shared by config, content, migrations, ... */
export interface DataDomain {
  id: string;
  modes: SafetyMode[];
  defaultMode: SafetyMode;
  /** Entity count at or above which apply runs as a background job; Infinity = always inline. */
  inlineThreshold: number;
  /** The full contract (DataDomainDefinition) is in plugins/data-ops/public.ts, the engine that runs it. */
  validate(input: unknown, ctx: never): Promise<unknown>;
  snapshot(input: unknown, ctx: never): Promise<string>;
  plan(input: unknown, mode: SafetyMode, ctx: never): Promise<unknown>;
  apply(operation: never, ctx: never): Promise<unknown>;
  verify(plan: never, ctx: never): Promise<unknown>;
}

/**
 * A data migration a plugin declares (registry `dataMigrations`, manifest `provides.dataMigrations`):
 * an id such as `2026-11-25-rename-title` (runs once per tenant, in id order), a description and the
 * steps. The step format is the data-migrations plugin's (plugins/data-migrations/definition.ts); it
 * validates them and reports a bad declaration in GET /api/migrations/status instead of running it.
 */
export interface DataMigrationDeclaration {
  id: string;
  description: string;
  /** Default collection of the steps that name none. */
  collection?: string;
  steps: Array<Record<string, unknown>>;
}

/** A slice of the GraphQL schema contributed by a plugin. */
export interface GraphqlContribution {
  id: string;
  typeDefs: string;
  resolvers: Record<string, unknown>;
}

/**
 * A WebSocket endpoint: the kernel hands it the upgrade requests for its path (case, a trailing slash
 * and /api/v1 normalised as for routes) once the instance is serving. The handler authenticates the
 * connection itself (the container key `identify` turns a request into an identity).
 */
export interface WebSocketEndpoint {
  id: string;
  path: string;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

/** A permission name with what it allows; filled from plugin manifests. */
export interface PermissionDefinition {
  name: string;
  description: string;
}

/** Turns a request into an identity (cookie session, bearer token, API key...). Lowest priority first. */
export interface IdentityResolver {
  id: string;
  priority: number;
  /**
   * True when the browser sends the credential by itself (a cookie): the kernel then refuses unsafe
   * requests that the browser marks as coming from another origin (403 CSRF_REJECTED). Credentials a
   * page must add itself (Authorization: Bearer, API keys) leave it unset.
   */
  ambient?: boolean;
  resolve(ctx: Context): Promise<Identity | null>;
}

/**
 * A named check shown in GET /api/system/health under `checks.<id>`. With `exposeAs`, its whole
 * result is also published at `data.<exposeAs>` (e.g. the setup plugin's `data.setup.progress`);
 * that field is public, so it must hold nothing sensitive.
 */
export interface HealthCheck {
  id: string;
  exposeAs?: string;
  check(): Promise<Record<string, unknown> & { status: 'ok' | 'degraded' | 'down' }>;
}

/** Koa middleware contributed by a plugin, run on every request at its stage. */
export interface MiddlewareEntry {
  id: string;
  stage: 'beforeIdentity' | 'afterIdentity';
  handler(ctx: Context, next: () => Promise<void>): Promise<void>;
}

/**
 * A `cms <name>` command a plugin contributes. The CLI finds it in the manifests (provides.cliCommands)
 * without running plugin code, boots the kernel on a free port with the job runner off, runs it, and
 * stops. Output goes through `out` (stdout); a refusal is thrown as an Error (printed, exit 1).
 */
export interface CliCommand {
  name: string;
  summary: string;
  /** e.g. `[--json]`, shown in the usage. */
  usage?: string;
  run(context: {
    kernel: { container: { resolve<T>(key: string): T }; registries: unknown };
    json: boolean;
    args: string[];
    out(text: string): void;
  }): Promise<void>;
}

/**
 * A page of the admin UI, from the `adminPages` of an enabled plugin's manifest (the loader fills this
 * registry; keyed by path). A `bundled` module is a Svelte page compiled into the admin bundle; a `file`
 * module is a plain ES module in the plugin's folder, served by the admin-ui plugin at `url`, exporting
 * `mount(element, ctx)`.
 */
export interface AdminPageDefinition {
  path: string;
  pluginId: string;
  title: string;
  icon?: string;
  permission?: string;
  /** The sidebar entry (its group named, or given by the icon: kernel/admin-nav.ts), or false for a page reached by links only. */
  nav: false | { label: string; order: number; group: AdminNavGroup };
  module: { kind: 'bundled'; name: string } | { kind: 'file'; file: string; relative: string; url: string };
}

/** What a system job's handler is given (registry `systemJobs`). */
export interface SystemJobContext {
  /** The request's `params`, validated by the job's `params` schema when it has one. */
  params: Record<string, unknown>;
  /** The tenant and user id of the administrator who started the job. */
  tenantId: string;
  startedBy: string | null;
  /** The kernel container (kernel services and every plugin's keys); `optional()` for keys that may be absent. */
  container: { resolve<T = unknown>(key: string): T; cradle: Record<string, any> };
  logger: Logger;
  /** Aborted when the instance stops (see JobHelpers.signal). */
  signal: AbortSignal;
  progress(processed: number, total: number): Promise<void>;
}

/**
 * A named maintenance job an administrator can start with POST /api/system-jobs (plugins/system runs
 * it as a background job of type `system-job`). The result is plain JSON data saying what it did
 * (`{deleted: 3}`); a thrown error fails the run with its message.
 */
export interface SystemJob {
  /** `purge-expired-tokens`: lower-case words joined by dashes. */
  name: string;
  description: string;
  /** A zod schema of `params` (checked before the job is queued: 400 VALIDATION_ERROR); none = any object. */
  params?: ZodType<Record<string, unknown>>;
  handler(context: SystemJobContext): Promise<object>;
}

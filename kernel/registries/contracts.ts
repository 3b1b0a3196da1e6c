import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'koa';
import type { Readable } from 'node:stream';
import type { Identity } from '../http/identity.js';

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
}

/** Import format: detects and parses (in the worker pool, by its task name) an external export. */
export interface ImportFormat {
  format: string;
  label: string;
  description?: string;
  extensions: string[];
  features: string[];
  detect(sample: { filename: string; head: Buffer }): number;
  /** Name of the worker task that parses the file into normalised entity batches. */
  parseTask: string;
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
  validate(input: unknown): Promise<unknown>;
  snapshot(input: unknown): Promise<unknown>;
  plan(input: unknown, mode: SafetyMode): Promise<unknown>;
  apply(plan: unknown): Promise<unknown>;
  verify(plan: unknown): Promise<unknown>;
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

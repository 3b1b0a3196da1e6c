import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Context } from 'koa';
import type { ZodType } from 'zod';
import type { AdminNavGroup } from '../admin-nav.js';
import type { Identity } from '../http/identity.js';
import type { Logger } from '../logger.js';

// The contracts of the extension points the kernel itself reads. Those only one plugin reads (storage
// drivers, import formats, widgets, data domains, GraphQL slices, data migrations) are that plugin's
// (its public.ts, through ExtensionPoints in ./index.ts).

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
  /**
   * The identity, or null for the next resolver. May answer synchronously (a request without this
   * resolver's credential): the kernel then makes no promise for it.
   */
  resolve(ctx: Context): Identity | null | Promise<Identity | null>;
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
  /** More lines for `cms <name> --help` (subcommands, flags, examples). */
  help?: string;
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

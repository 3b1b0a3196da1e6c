import { readFileSync } from 'node:fs';
import semver from 'semver';
import { z } from 'zod';
import { ADMIN_NAV_GROUPS } from './admin-nav.js';
import { BootError } from './errors.js';
import { PROVIDES_KEYS } from './registries/index.js';

export const PHASES = ['IDLE', 'SETUP', 'CORE', 'READY', 'FULL', 'WARMED'] as const;
export type Phase = (typeof PHASES)[number];
/** Phases a plugin may boot in; READY is the moment the kernel starts serving requests. */
export const PLUGIN_PHASES = ['setup', 'core', 'full', 'warmed'] as const;
export type PluginPhase = (typeof PLUGIN_PHASES)[number];

const httpMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', '*']);
const permissionName = z
  .string()
  .regex(/^(public|authenticated|[a-z][a-z0-9-]*:[a-z][a-z0-9-]*)$/, 'public, authenticated, or a name like content:read');

/** `/admin/<segment>...`: lower-case static segments or `:param` segments. */
const ADMIN_PAGE_PATH = /^\/admin(\/(:[a-zA-Z][a-zA-Z0-9_]*|[a-z0-9][a-z0-9._~-]*))+$/;
/** `bundled:<name>` (a page compiled into the admin bundle) or a relative `.js`/`.mjs` file in the plugin's folder. */
const ADMIN_PAGE_MODULE = /^(bundled:[a-z][a-z0-9-]*|(?!\/)(?!.*\/\/)(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9_][A-Za-z0-9_./-]*\.m?js)$/;

/** A page of the admin UI a plugin contributes (see README, "Admin pages"). */
export const adminPageSchema = z.strictObject({
  path: z
    .string()
    .regex(ADMIN_PAGE_PATH, 'a path under /admin/ such as /admin/hello or /admin/hello/:id (lower-case segments, :param allowed)'),
  title: z.string().min(1).max(80),
  /** An icon name of the admin UI; unknown names get a generic icon. */
  icon: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/)
    .max(40)
    .optional(),
  permission: permissionName.optional(),
  /**
   * Sidebar entry: true (label = title), false, or {label, order, group}. Default: true unless the path has a
   * :param. `group` is the sidebar group (kernel/admin-nav.ts); without it the icon decides, else "More".
   */
  nav: z
    .union([
      z.boolean(),
      z.strictObject({
        label: z.string().min(1).max(40),
        order: z.number().int().min(0).max(10000).default(500),
        group: z.enum(ADMIN_NAV_GROUPS).optional(),
      }),
    ])
    .optional(),
  module: z
    .string()
    .max(200)
    .regex(ADMIN_PAGE_MODULE, "'bundled:<name>' or a relative path of a .js or .mjs file inside the plugin's folder (no '..')"),
});
export type AdminPageManifest = z.output<typeof adminPageSchema>;

/** One environment variable of a plugin: the option key it sets and how its text is read. */
export const pluginEnvEntrySchema = z.strictObject({
  /** Option path inside plugins.options.<id> (dots for nesting; `*` takes what a `*` in the variable name matched). */
  option: z.string().regex(/^([A-Za-z_][A-Za-z0-9_]*|\*)(\.([A-Za-z_][A-Za-z0-9_]*|\*))*$/, 'an option path such as host or smtp.port'),
  type: z.enum(['string', 'int', 'number', 'bool', 'list', 'json']).default('string'),
  /** A password, key or token: never logged, never shown in messages. */
  secret: z.boolean().default(false),
  description: z.string().optional(),
  /**
   * An option path at or above `option` (no `*`): the variables naming one block count as a whole
   * (docs/configuration.md, "One configuration path"): only when each `required` one is set, and then in
   * place of what plugins.options has at that path instead of merged into it key by key.
   */
  block: z.string().optional(),
  /** With `block`: the block counts only when this variable (or one of its aliases) is set. */
  required: z.boolean().optional(),
  /** plugins.options ranks over this variable (over its whole block, if it has one): the variable is a fallback. */
  under: z.boolean().optional(),
});
export type PluginEnvEntry = z.output<typeof pluginEnvEntrySchema>;

/** One System Setting of a plugin: the option path its value takes. */
export const pluginSettingEntrySchema = z.strictObject({
  option: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, 'an option path such as folder or smtp.host'),
  description: z.string().optional(),
});
export type PluginSettingEntry = z.output<typeof pluginSettingEntrySchema>;

export const manifestSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes, starting with a letter'),
  name: z.string().min(1),
  version: z.string().refine((v) => semver.valid(v) !== null, 'a semantic version such as 1.0.0'),
  description: z.string().optional(),
  kernel: z.string().refine((v) => semver.validRange(v) !== null, 'a semver range such as ^1.0.0'),
  requires: z.array(z.string()).default([]),
  /**
   * Plugins this one works with when they are enabled and without them otherwise: it imports event names
   * and pure helpers from their public.ts (loaded even while they are disabled) and reaches their services
   * through the container (`optional(scope, key)`). Unlike `requires`, it neither orders the boot nor
   * needs them enabled (test/unit/plugin-boundary.test.ts reads it).
   */
  optional: z.array(z.string()).default([]),
  phase: z.enum(PLUGIN_PHASES).default('core'),
  enabledByDefault: z.boolean().default(true),
  entry: z.string().default('index.js'),
  provides: z
    .strictObject(
      Object.fromEntries(PROVIDES_KEYS.map((k) => [k, z.array(z.string()).optional()])) as Record<
        (typeof PROVIDES_KEYS)[number],
        z.ZodOptional<z.ZodArray<z.ZodString>>
      >,
    )
    .default({}),
  /** Permissions this plugin defines (name -> what it allows). */
  permissions: z
    .union([z.array(z.string()), z.record(z.string(), z.string())])
    .default([])
    .transform((p) => (Array.isArray(p) ? Object.fromEntries(p.map((n) => [n, n])) : p)),
  /** API namespaces this plugin owns: /api/<namespace>/... -> method -> permission. */
  namespaces: z.record(z.string().regex(/^[a-z0-9_.-]+$/), z.partialRecord(httpMethod, permissionName)).default({}),
  /** Pages of the admin UI (collected from enabled plugins into the `adminPages` registry). */
  adminPages: z.array(adminPageSchema).max(50).default([]),
  /**
   * Environment variables this plugin reads, mapped to option keys (the kernel reads the environment,
   * the plugin never does): VARIABLE -> { option, type, secret? }. The README's plugin environment
   * table lists every entry (test/unit/plugin-env-docs.test.ts keeps them in step).
   */
  env: z
    .record(z.string().regex(/^[A-Z][A-Z0-9_]*(\*[A-Z0-9_]*)?$/, 'an upper-case variable name (at most one *)'), pluginEnvEntrySchema)
    .default({}),
  /**
   * System Settings (default tenant) that configure this plugin, mapped to option paths: KEY -> { option }.
   * Only for a plugin whose definition declares an `options` schema: the kernel merges them under the
   * plugin's options and environment (docs/configuration.md, "One configuration path") and hands the
   * plugin the result at boot and again when one of them changes.
   */
  settings: z.record(z.string().regex(/^[A-Z][A-Z0-9_]{1,63}$/, 'an upper-case setting key'), pluginSettingEntrySchema).default({}),
});

export type PluginManifest = z.output<typeof manifestSchema>;

export function parseManifest(raw: unknown, where: string): PluginManifest {
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new BootError(`Invalid plugin manifest ${where}: ${details}`);
  }
  return parsed.data;
}

export function readManifest(file: string): PluginManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BootError(`Cannot read plugin manifest ${file}: ${(err as Error).message}`);
  }
  return parseManifest(raw, file);
}

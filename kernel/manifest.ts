import { readFileSync } from 'node:fs';
import semver from 'semver';
import { z } from 'zod';
import { BootError } from './errors.js';
import { PROVIDES_KEYS } from './registries/index.js';

export const PHASES = ['IDLE', 'SETUP', 'CORE', 'READY', 'FULL', 'WARMED'] as const;
export type Phase = (typeof PHASES)[number];
/** Phases a plugin may boot in; READY is the moment the kernel starts serving requests. */
export const PLUGIN_PHASES = ['setup', 'core', 'full', 'warmed'] as const;
export type PluginPhase = (typeof PLUGIN_PHASES)[number];

const httpMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', '*']);
const permissionName = z.string().regex(/^(public|authenticated|[a-z][a-z0-9-]*:[a-z][a-z0-9-]*)$/, 'public, authenticated, or a name like content:read');

export const manifestSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes, starting with a letter'),
  name: z.string().min(1),
  version: z.string().refine((v) => semver.valid(v) !== null, 'a semantic version such as 1.0.0'),
  description: z.string().optional(),
  kernel: z.string().refine((v) => semver.validRange(v) !== null, 'a semver range such as ^1.0.0'),
  requires: z.array(z.string()).default([]),
  phase: z.enum(PLUGIN_PHASES).default('core'),
  enabledByDefault: z.boolean().default(true),
  entry: z.string().default('index.js'),
  provides: z
    .strictObject(Object.fromEntries(PROVIDES_KEYS.map((k) => [k, z.array(z.string()).optional()])) as Record<(typeof PROVIDES_KEYS)[number], z.ZodOptional<z.ZodArray<z.ZodString>>>)
    .default({}),
  /** Permissions this plugin defines (name -> what it allows). */
  permissions: z
    .union([z.array(z.string()), z.record(z.string(), z.string())])
    .default([])
    .transform((p) => (Array.isArray(p) ? Object.fromEntries(p.map((n) => [n, n])) : p)),
  /** API namespaces this plugin owns: /api/<namespace>/... -> method -> permission. */
  namespaces: z.record(z.string().regex(/^[a-z0-9_.-]+$/), z.partialRecord(httpMethod, permissionName)).default({}),
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

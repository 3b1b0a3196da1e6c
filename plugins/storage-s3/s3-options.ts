import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';

/** What configures the bucket, whichever source it comes from (environment, plugin options, System Settings). */
const connectionSchema = z.strictObject({
  bucket: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name: 3-63 lower-case letters, digits, dots and dashes')
    .optional(),
  region: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/, 'a region such as eu-west-1 or auto')
    .optional(),
  endpoint: z.url({ protocol: /^https?$/ }).optional(),
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  accessKeyId: z.string().min(1).optional(),
  secretAccessKey: z.string().min(1).optional(),
  /** Key prefix (MEDIA_FOLDER); leading and trailing slashes are dropped; '' for none. */
  folder: z.string().optional(),
  /** object_store only: path-style addressing (`<endpoint>/<bucket>/<key>`) instead of virtual-hosted. */
  forcePathStyle: z.boolean().optional(),
});
type Connection = z.output<typeof connectionSchema>;

/** plugins.options['storage-s3']: the connection plus the upload tuning. */
export const s3OptionsSchema = connectionSchema.extend({
  partSizeMb: z.number().int().min(5).max(5120).default(8),
  queueSize: z.number().int().min(1).max(16).default(2),
});
export type S3Options = z.output<typeof s3OptionsSchema>;

/** Environment variable -> connection field. */
const ENV: Record<string, keyof Connection> = {
  MEDIA_CLOUD_BUCKET: 'bucket',
  MEDIA_CLOUD_REGION: 'region',
  MEDIA_CLOUD_ENDPOINT: 'endpoint',
  MEDIA_CLOUD_PUBLIC_URL: 'publicUrl',
  MEDIA_ACCESS_KEY_ID: 'accessKeyId',
  MEDIA_SECRET_ACCESS_KEY: 'secretAccessKey',
  MEDIA_FOLDER: 'folder',
  MEDIA_CLOUD_FORCE_PATH_STYLE: 'forcePathStyle',
};
/** The System Settings read in boot (MEDIA_CLOUD_BUCKET is not in the catalogue; it is read when someone added it). */
export const S3_SETTING_KEYS = Object.keys(ENV).filter((k) => k !== 'MEDIA_CLOUD_FORCE_PATH_STYLE');

const describe = (error: z.ZodError, name: (field: string) => string) =>
  error.issues.map((i) => `${name(String(i.path[0] ?? '(root)'))}: ${i.message}`).join('; ');

export function parseS3Options(raw: unknown): S3Options {
  const parsed = s3OptionsSchema.safeParse(raw);
  if (!parsed.success) throw new BootError(`Invalid plugins.options['storage-s3']: ${describe(parsed.error, (f) => f)}`);
  return parsed.data;
}

function fromVariables(source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [variable, field] of Object.entries(ENV)) {
    let value = source[variable];
    if (typeof value === 'string') value = value.trim();
    if (value === undefined || value === null || value === '') continue;
    if (field === 'forcePathStyle' && typeof value === 'string') value = /^(1|true|yes|on)$/i.test(value);
    if (field === 'forcePathStyle' && typeof value !== 'boolean') value = false;
    out[field] = value;
  }
  return out;
}

/** The connection from the environment: the manifest's `env` mapping, handed over by the kernel as envOptions. */
export function envConnection(values: Record<string, unknown> = {}, sources: Record<string, string> = {}): Connection {
  const byVariable = Object.fromEntries(Object.entries(ENV).map(([name, field]) => [name, values[field]]));
  const parsed = connectionSchema.safeParse(fromVariables(byVariable));
  const variable = (field: string) => sources[field] ?? Object.keys(ENV).find((k) => ENV[k] === field) ?? field;
  if (!parsed.success) throw new BootError(`Invalid media storage environment: ${describe(parsed.error, variable)}`);
  return parsed.data;
}

/** System Settings: a value that does not fit is dropped (and named), not fatal. */
export function settingsConnection(settings: Record<string, unknown>): { connection: Connection; invalid: string[] } {
  const raw = fromVariables(settings);
  const connection: Record<string, unknown> = {};
  const invalid: string[] = [];
  for (const [field, value] of Object.entries(raw)) {
    const one = connectionSchema.safeParse({ [field]: value });
    if (one.success) connection[field] = value;
    else invalid.push(Object.keys(ENV).find((k) => ENV[k] === field) ?? field);
  }
  return { connection: connection as Connection, invalid };
}

export interface S3Config {
  bucket?: string;
  region?: string;
  endpoint?: string;
  publicUrl?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Key prefix without slashes at either end ('' for none). */
  prefix: string;
  forcePathStyle?: boolean;
  partSize: number;
  queueSize: number;
}

/** Environment, then plugin options, then System Settings, then defaults (prefix `media`). */
export function s3Config(env: Connection, options: S3Options, settings: Connection): S3Config {
  const { partSizeMb, queueSize, ...fromOptions } = options;
  const pick = <K extends keyof Connection>(key: K): Connection[K] => env[key] ?? fromOptions[key] ?? settings[key];
  const trim = (url?: string) => url?.replace(/\/+$/, '');
  return {
    bucket: pick('bucket'),
    region: pick('region'),
    endpoint: trim(pick('endpoint')),
    publicUrl: trim(pick('publicUrl')),
    accessKeyId: pick('accessKeyId'),
    secretAccessKey: pick('secretAccessKey'),
    forcePathStyle: pick('forcePathStyle'),
    prefix: (pick('folder') ?? 'media').replace(/^\/+|\/+$/g, ''),
    partSize: partSizeMb * 1024 * 1024,
    queueSize,
  };
}

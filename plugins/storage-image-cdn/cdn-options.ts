import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';

const httpUrl = z.url({ protocol: /^https?$/ });

/** What configures the CDN account, whichever source it comes from. */
const accountSchema = z.strictObject({
  cloudName: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, 'letters, digits, _ and - only')
    .optional(),
  apiKey: z.string().min(1).optional(),
  apiSecret: z.string().min(1).optional(),
  /** The upload API's base address (default https://api.cloudinary.com). */
  uploadUrl: httpUrl.optional(),
  /** Delivery base (default https://res.cloudinary.com/<cloud name>). */
  publicUrl: httpUrl.optional(),
  /** Public-id prefix (MEDIA_FOLDER); slashes at either end are dropped; '' for none. */
  folder: z.string().optional(),
});
type Account = z.output<typeof accountSchema>;

/** plugins.options['storage-image-cdn']: the account plus tuning. */
export const cdnOptionsSchema = accountSchema.extend({
  /** Files larger than this go up in chunks of this size (the CDN's chunked upload). */
  chunkSizeMb: z.number().int().min(5).max(100).default(20),
  /** Time to the response headers of a delivery, HEAD or destroy request. */
  requestTimeoutMs: z.number().int().min(100).max(300000).default(30000),
});
export type CdnOptions = z.output<typeof cdnOptionsSchema>;

const ENV: Record<string, keyof Account> = {
  MEDIA_CDN_CLOUD_NAME: 'cloudName',
  MEDIA_CDN_API_KEY: 'apiKey',
  MEDIA_CDN_API_SECRET: 'apiSecret',
  MEDIA_CDN_UPLOAD_URL: 'uploadUrl',
  MEDIA_CLOUD_PUBLIC_URL: 'publicUrl',
  MEDIA_FOLDER: 'folder',
};
/** System Settings read in boot (only MEDIA_FOLDER and MEDIA_CLOUD_PUBLIC_URL are in the catalogue). */
export const CDN_SETTING_KEYS = Object.keys(ENV);
const variable = (field: string) => Object.keys(ENV).find((k) => ENV[k] === field) ?? field;
const describe = (error: z.ZodError, name: (field: string) => string) =>
  error.issues.map((i) => `${name(String(i.path[0] ?? '(root)'))}: ${i.message}`).join('; ');

function fromVariables(source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(ENV)) {
    const value = typeof source[name] === 'string' ? (source[name] as string).trim() : source[name];
    if (value !== undefined && value !== null && value !== '') out[field] = value;
  }
  return out;
}

export function parseCdnOptions(raw: unknown): CdnOptions {
  const parsed = cdnOptionsSchema.safeParse(raw);
  if (!parsed.success) throw new BootError(`Invalid plugins.options['storage-image-cdn']: ${describe(parsed.error, (f) => f)}`);
  return parsed.data;
}

/** The account from the environment: the manifest's `env` mapping, handed over by the kernel as envOptions. */
export function envAccount(values: Record<string, unknown> = {}, sources: Record<string, string> = {}): Account {
  const byVariable = Object.fromEntries(Object.entries(ENV).map(([name, field]) => [name, values[field]]));
  const parsed = accountSchema.safeParse(fromVariables(byVariable));
  if (!parsed.success)
    throw new BootError(`Invalid media storage environment: ${describe(parsed.error, (f) => sources[f] ?? variable(f))}`);
  return parsed.data;
}

/** System Settings: a value that does not fit is dropped (and named), not fatal. */
export function settingsAccount(settings: Record<string, unknown>): { account: Account; invalid: string[] } {
  const account: Record<string, unknown> = {};
  const invalid: string[] = [];
  for (const [field, value] of Object.entries(fromVariables(settings))) {
    if (accountSchema.safeParse({ [field]: value }).success) account[field] = value;
    else invalid.push(variable(field));
  }
  return { account: account as Account, invalid };
}

export interface CdnConfig {
  cloudName?: string;
  apiKey?: string;
  apiSecret?: string;
  uploadUrl: string;
  /** Delivery base, without a trailing slash; undefined until the cloud name is known. */
  publicUrl?: string;
  prefix: string;
  chunkSize: number;
  requestTimeoutMs: number;
  /** Where streamed bodies are spooled before upload. */
  tempDir: string;
}

/** Environment, then plugin options, then System Settings, then defaults. */
export function cdnConfig(env: Account, options: CdnOptions, settings: Account, tempDir: string): CdnConfig {
  const { chunkSizeMb, requestTimeoutMs, ...fromOptions } = options;
  const pick = <K extends keyof Account>(key: K): Account[K] => env[key] ?? fromOptions[key] ?? settings[key];
  const trim = (url?: string) => url?.replace(/\/+$/, '');
  const cloudName = pick('cloudName');
  return {
    cloudName,
    apiKey: pick('apiKey'),
    apiSecret: pick('apiSecret'),
    uploadUrl: trim(pick('uploadUrl')) ?? 'https://api.cloudinary.com',
    publicUrl: trim(pick('publicUrl')) ?? (cloudName ? `https://res.cloudinary.com/${cloudName}` : undefined),
    prefix: (pick('folder') ?? 'media').replace(/^\/+|\/+$/g, ''),
    chunkSize: chunkSizeMb * 1024 * 1024,
    requestTimeoutMs,
    tempDir,
  };
}

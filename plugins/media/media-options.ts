import { z } from 'zod';

/**
 * plugins.options.media (tests and operators). The MEDIA_* variables win (read by readMediaEnv), then the System
 * Setting MEDIA_STORAGE_TYPE (manifest `settings`): merged and validated by the kernel. The upload limits' settings
 * are read per upload (uploadLimits).
 */
export const mediaOptionsSchema = z.object({
  /** The storage driver id (MEDIA_STORAGE_TYPE). */
  storageType: z.string().min(1).max(64).optional(),
  /** Largest upload in MiB (MEDIA_MAX_UPLOAD_MB); fractions allowed (tests). */
  maxUploadMb: z
    .number()
    .positive()
    .max(1024 * 1024)
    .optional(),
  /** Allowed detected types: exact (`application/pdf`) or `type/*` (MEDIA_ALLOWED_TYPES). */
  allowedTypes: z.array(z.string().min(1).max(127)).optional(),
  /** Thumbnail name -> width in pixels; webp, only for raster images wider than the width. */
  thumbnails: z.record(z.string().regex(/^[a-z0-9]{1,16}$/), z.number().int().min(16).max(8192)).default({ sm: 320, md: 768, lg: 1536 }),
  thumbnailQuality: z.number().int().min(1).max(100).default(80),
  /** Extra types served inline by /files/ (default: only images but SVG, PDF, audio, video and plain text). */
  inlineTypes: z.array(z.string().min(1).max(127)).default([]),
  /** Wrong-password attempts allowed per share link in the window. */
  shareAttempts: z
    .object({ points: z.number().int().min(1).max(1000).default(10), durationSeconds: z.number().int().min(1).default(900) })
    .prefault({}),
});
export type MediaOptions = z.output<typeof mediaOptionsSchema>;

/** The decisions' default allow list: images, PDF, plain text, CSV, JSON, audio, video, office documents; SVG and HTML (served as attachments). */
export const DEFAULT_ALLOWED_TYPES = [
  'image/*',
  'application/pdf',
  'text/plain',
  'text/csv',
  'application/json',
  'audio/*',
  'video/*',
  'text/html',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
];
export const DEFAULT_MAX_UPLOAD_MB = 100;

/** The optional System Settings store of the setup plugin (absent when setup is disabled). */
export interface SettingsReader {
  get(key: string): Promise<unknown>;
}

export async function readSetting(settings: SettingsReader | null, key: string): Promise<unknown> {
  if (!settings) return undefined;
  try {
    const value = await settings.get(key);
    return value === null || value === '' ? undefined : value;
  } catch {
    return undefined; // no settings table yet (before setup seeds it)
  }
}

function typeList(value: unknown): string[] | undefined {
  const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value.map(String) : undefined;
  const clean = list?.map((t) => t.trim().toLowerCase()).filter((t) => /^[a-z0-9.+-]+\/(\*|[a-z0-9.+-]+)$/.test(t));
  return clean && clean.length ? clean : undefined;
}

function megabytes(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * The MEDIA_* variables the kernel mapped from the environment (plugin.json `env`): option key -> value.
 * A number or list that did not convert arrives as its text.
 */
export interface MediaEnv {
  storageType?: unknown;
  maxUploadMb?: unknown;
  allowedTypes?: unknown;
}

/**
 * The MEDIA_* variables as this plugin reads them, before the kernel's merge: an unusable value (not a
 * positive number of MiB, no valid type, blank text) is left out, so the next source applies; it does not
 * stop the boot. Types are lower-cased, text trimmed.
 */
export function readMediaEnv(env: MediaEnv): MediaEnv {
  const read: MediaEnv = {
    storageType: (typeof env.storageType === 'string' && env.storageType.trim()) || undefined,
    maxUploadMb: megabytes(env.maxUploadMb),
    allowedTypes: typeList(env.allowedTypes),
  };
  return Object.fromEntries(Object.entries(read).filter(([, v]) => v !== undefined));
}

export interface UploadLimits {
  maxBytes: number;
  allowedTypes: string[];
}

/**
 * The upload limits, read per upload so a changed System Setting counts at once on every instance:
 * environment (MEDIA_MAX_UPLOAD_MB, MEDIA_ALLOWED_TYPES) > plugins.options.media (both in `options`, merged
 * by the kernel) > System Settings > defaults.
 */
export async function uploadLimits(options: MediaOptions, settings: SettingsReader | null): Promise<UploadLimits> {
  const mb = options.maxUploadMb ?? megabytes(await readSetting(settings, 'MEDIA_MAX_UPLOAD_MB')) ?? DEFAULT_MAX_UPLOAD_MB;
  const allowed =
    options.allowedTypes?.map((t) => t.toLowerCase()) ??
    typeList(await readSetting(settings, 'MEDIA_ALLOWED_TYPES')) ??
    DEFAULT_ALLOWED_TYPES;
  return { maxBytes: Math.floor(mb * 1024 * 1024), allowedTypes: allowed };
}

/** MEDIA_STORAGE_TYPE: environment > plugins.options.media.storageType > System Setting (merged by the kernel) > 'local'. Read at boot. */
export function storageType(options: MediaOptions): string {
  return options.storageType ?? 'local';
}

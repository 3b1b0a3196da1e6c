import { z } from 'zod';
import { optionText as text, optionUrl } from '../../lib/storage/option-text.js';

/**
 * plugins.options['storage-image-cdn']: the account plus tuning. The kernel merges the account from the
 * environment over the file's options over the System Settings (plugin.json `env` and `settings`).
 */
export const cdnOptionsSchema = z.strictObject({
  cloudName: text(z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'letters, digits, _ and - only')).optional(),
  apiKey: text(z.string().min(1)).optional(),
  apiSecret: text(z.string().min(1)).optional(),
  /** The upload API's base address (default https://api.cloudinary.com). */
  uploadUrl: optionUrl().optional(),
  /** Delivery base (default https://res.cloudinary.com/<cloud name>). */
  publicUrl: optionUrl().optional(),
  /** Public-id prefix (MEDIA_FOLDER); slashes at either end are dropped; '' for none. */
  folder: text(z.string()).optional(),
  /** Files larger than this go up in chunks of this size (the CDN's chunked upload). */
  chunkSizeMb: z.number().int().min(5).max(100).default(20),
  /** Time to the response headers of a delivery, HEAD or destroy request. */
  requestTimeoutMs: z.number().int().min(100).max(300000).default(30000),
});
export type CdnOptions = z.output<typeof cdnOptionsSchema>;

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

/** The driver's configuration from the merged options and the defaults. */
export function cdnConfig(options: CdnOptions, tempDir: string): CdnConfig {
  const trim = (url?: string) => url?.replace(/\/+$/, '');
  const { cloudName } = options;
  return {
    cloudName,
    apiKey: options.apiKey,
    apiSecret: options.apiSecret,
    uploadUrl: trim(options.uploadUrl) ?? 'https://api.cloudinary.com',
    publicUrl: trim(options.publicUrl) ?? (cloudName ? `https://res.cloudinary.com/${cloudName}` : undefined),
    prefix: (options.folder ?? 'media').replace(/^\/+|\/+$/g, ''),
    chunkSize: options.chunkSizeMb * 1024 * 1024,
    requestTimeoutMs: options.requestTimeoutMs,
    tempDir,
  };
}

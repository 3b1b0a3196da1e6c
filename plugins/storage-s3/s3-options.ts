import { z } from 'zod';
import { optionText as text, optionUrl } from '../../lib/storage/option-text.js';

/** MEDIA_CLOUD_FORCE_PATH_STYLE: on for 1/true/yes/on, off for any other text. */
const onOff = z.preprocess((v) => (typeof v === 'string' ? /^(1|true|yes|on)$/i.test(v.trim()) : v), z.boolean());

/**
 * plugins.options['storage-s3']: the connection plus the upload tuning. The kernel merges the connection
 * from the environment over the file's options over the System Settings (plugin.json `env` and `settings`).
 */
export const s3OptionsSchema = z.strictObject({
  bucket: text(
    z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name: 3-63 lower-case letters, digits, dots and dashes'),
  ).optional(),
  region: text(z.string().regex(/^[a-z0-9-]{1,40}$/, 'a region such as eu-west-1 or auto')).optional(),
  endpoint: optionUrl().optional(),
  publicUrl: optionUrl().optional(),
  accessKeyId: text(z.string().min(1)).optional(),
  secretAccessKey: text(z.string().min(1)).optional(),
  /** Key prefix (MEDIA_FOLDER); leading and trailing slashes are dropped; '' for none. */
  folder: text(z.string()).optional(),
  /** object_store only: path-style addressing (`<endpoint>/<bucket>/<key>`) instead of virtual-hosted. */
  forcePathStyle: onOff.optional(),
  partSizeMb: z.number().int().min(5).max(5120).default(8),
  queueSize: z.number().int().min(1).max(16).default(2),
});
export type S3Options = z.output<typeof s3OptionsSchema>;

/** The options the driver uses as they are (addresses without a trailing slash), its key prefix and part size. */
export type S3Config = Pick<
  S3Options,
  'bucket' | 'region' | 'endpoint' | 'publicUrl' | 'accessKeyId' | 'secretAccessKey' | 'forcePathStyle' | 'queueSize'
> & {
  /** Key prefix without slashes at either end ('' for none). */
  prefix: string;
  /** Bytes. */
  partSize: number;
};

/** The driver's configuration from the merged options (defaults: prefix `media`, no trailing slash on addresses). */
export function s3Config(options: S3Options): S3Config {
  const trim = (url?: string) => url?.replace(/\/+$/, '');
  return {
    bucket: options.bucket,
    region: options.region,
    endpoint: trim(options.endpoint),
    publicUrl: trim(options.publicUrl),
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    forcePathStyle: options.forcePathStyle,
    prefix: (options.folder ?? 'media').replace(/^\/+|\/+$/g, ''),
    partSize: options.partSizeMb * 1024 * 1024,
    queueSize: options.queueSize,
  };
}

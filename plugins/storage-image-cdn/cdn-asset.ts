import { StorageError } from '../../lib/storage/storage-error.js';
import { storagePathSegments } from '../../lib/storage/storage-path.js';

const IMAGE = new Set([
  'jpg',
  'jpeg',
  'jpe',
  'png',
  'gif',
  'webp',
  'avif',
  'bmp',
  'tif',
  'tiff',
  'ico',
  'svg',
  'heic',
  'heif',
  'pdf',
  'psd',
  'jp2',
  'jxl',
]);
const VIDEO = new Set([
  'mp4',
  'webm',
  'mov',
  'm4v',
  'avi',
  'mkv',
  'ogv',
  'mpeg',
  'mpg',
  'mp3',
  'wav',
  'ogg',
  'oga',
  'm4a',
  'aac',
  'flac',
  'opus',
]);
/** Characters the CDN does not allow in public ids. */
const NOT_IN_PUBLIC_ID = /[?&#<>]/;

export interface CdnAsset {
  publicId: string;
  resourceType: 'image' | 'video' | 'raw';
  /** The delivery extension (image and video); raw files keep theirs in the public id. */
  format?: string;
  filename: string;
}

/**
 * Where a storage path lives on the CDN. Images and videos: public id = MEDIA_FOLDER + the path without
 * its extension, delivered as `<public id>.<ext>`; raw files (PDFs excepted: the CDN treats them as
 * images) keep the extension in the public id, as the CDN delivers raw files without a format.
 */
export function cdnAsset(prefix: string, path: string): CdnAsset {
  const segments = storagePathSegments(path);
  if (NOT_IN_PUBLIC_ID.test(path))
    throw new StorageError('INVALID_PATH', 'Invalid storage path: the image CDN does not allow ? & # < > in names');
  const filename = segments[segments.length - 1]!;
  const dot = filename.lastIndexOf('.');
  const ext = dot > 0 ? filename.slice(dot + 1).toLowerCase() : '';
  const resourceType = IMAGE.has(ext) ? 'image' : VIDEO.has(ext) ? 'video' : 'raw';
  const parts = prefix ? [prefix, ...segments] : segments;
  if (resourceType === 'raw') return { publicId: parts.join('/'), resourceType, filename };
  parts[parts.length - 1] = filename.slice(0, dot);
  return { publicId: parts.join('/'), resourceType, format: ext, filename };
}

/** `<type>/upload/<public id>[.<format>]`, each segment URL-encoded. */
export function deliveryPath(asset: CdnAsset): string {
  const id = asset.publicId.split('/').map(encodeURIComponent).join('/');
  return `${asset.resourceType}/upload/${id}${asset.format ? `.${asset.format}` : ''}`;
}

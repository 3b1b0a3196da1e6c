/**
 * The file of a WXR attachment item: its remote URL and a safe file name, with the MIME type its
 * extension names. Worker-side, no kernel imports (type-only contract imports).
 */
import { posix } from 'node:path';
import type { ImportedEntity } from '../importers/public.js';
import type { RecordContext } from './wxr-records.js';
import type { WxrNode } from './wxr-node.js';

const MIME_TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  heic: 'image/heic',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  ogv: 'video/ogg',
  txt: 'text/plain',
  csv: 'text/csv',
  zip: 'application/zip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  key: 'application/vnd.apple.keynote',
};

/** A remote attachment: recorded (http/https only), never fetched here. */
export function attachmentFile(
  url: string,
  id: string,
  node: WxrNode,
  ctx: Pick<RecordContext, 'warn'>,
): ImportedEntity['file'] | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    ctx.warn(`attachment ${id}: attachment_url is not a URL, no file recorded`, node.line);
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    ctx.warn(`attachment ${id}: attachment_url uses ${parsed.protocol} (only http and https are recorded), no file recorded`, node.line);
    return undefined;
  }
  let base = posix.basename(parsed.pathname);
  try {
    base = decodeURIComponent(base);
  } catch {
    /* keep the encoded name */
  }
  const filename = base.replace(/[\u0000-\u001f\u007f/\\]/g, '').replace(/^\.+/, '') || `attachment-${id}`;
  const ext = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  const mimeType = ext ? MIME_TYPES[ext] : undefined;
  return mimeType ? { url: parsed.href, filename, mimeType } : { url: parsed.href, filename };
}

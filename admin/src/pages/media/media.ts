// Shapes of the media API (GET /api/media, folders, share links) and helpers for the media pages.
import type { RouteResponse } from '../../lib/remote';
import { t } from '../../i18n/index.svelte';

/** A page of GET /api/media (the wire shapes come from the generated route types). */
export type MediaList = RouteResponse<'GET /api/media'>;
export type MediaItem = RouteResponse<'GET /api/media/:id'>;
export type SharedLinkInfo = MediaItem['sharedLinks'][number];
export type Folder = RouteResponse<'GET /api/media/folders'>[number];

/** The smallest thumbnail of an image, or the image itself (raster types only; SVG is served as an attachment). */
export function thumbOf(m: MediaItem, size: 'sm' | 'md' = 'sm'): string | null {
  const t = m.thumbnails?.[size] ?? m.thumbnails?.sm ?? m.thumbnails?.md;
  if (t) return t.url;
  return /^image\/(png|jpe?g|gif|webp|avif)$/.test(m.mimeType) ? m.url : null;
}

/** A short label for a file type: "PDF", "PNG", "MP4". */
export const typeLabel = (mime: string) =>
  (mime.split('/')[1] ?? mime)
    .replace(/^vnd\.|^x-/, '')
    .split(/[.+-]/)[0]!
    .toUpperCase()
    .slice(0, 6);

/** The expiry choices of the share dialog (hours; null = never); `label` is a catalogue key. */
export const EXPIRY_CHOICES: Array<{ label: string; hours: number | null }> = [
  { label: 'media.expiry.1', hours: 1 },
  { label: 'media.expiry.24', hours: 24 },
  { label: 'media.expiry.168', hours: 24 * 7 },
  { label: 'media.expiry.never', hours: null },
];

/** Folders as an indented list in tree order (children under their parent). */
export function folderTree(folders: Folder[]): Array<Folder & { depth: number; path: string }> {
  const out: Array<Folder & { depth: number; path: string }> = [];
  const children = (parent: string | null) => folders.filter((f) => f.parentId === parent).sort((a, b) => a.name.localeCompare(b.name));
  const walk = (parent: string | null, depth: number, prefix: string) => {
    for (const f of children(parent)) {
      const path = prefix ? `${prefix} / ${f.name}` : f.name;
      out.push({ ...f, depth, path });
      if (depth < 20) walk(f._id, depth + 1, path);
    }
  };
  walk(null, 0, '');
  return out;
}

/** The public page of a share link (the token is only known right after creating it). */
export const shareUrl = (mediaId: string, token: string) =>
  `${location.origin}/admin/share?id=${encodeURIComponent(mediaId)}&token=${encodeURIComponent(token)}`;

/**
 * What a person reads when an upload is refused: the API's message without the configuration keys it
 * names for operators (e.g. "(MEDIA_ALLOWED_TYPES)"), with what to do next; the error code stays in the
 * API answer and the logs, not on the page.
 */
export function uploadProblem(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message.replace(/\s*\([A-Z][A-Z0-9_]{2,}\)/g, '').trim() : t('media.upload.failed');
  if (code === 'UNSUPPORTED_MEDIA_TYPE') return t('media.upload.allowTypes', { message });
  if (code === 'PAYLOAD_TOO_LARGE') return t('media.upload.raiseLimit', { message });
  if (code === 'EMPTY_FILE') return t('media.upload.empty');
  return message;
}

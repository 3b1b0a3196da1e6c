// <cms-widget-media-storage-analytics>: Media storage in words: files and bytes in total (linked to the media
// library), then tables by type ("PNG image"), by folder and the last months of uploads.
// Fetches /api/media/analytics.
import { bytes, clip, defineWidget, el, empty, lead, number, plural, stack, table } from '../widget-element.js';

const KINDS = { image: 'image', video: 'video', audio: 'audio', text: 'text', font: 'font', application: 'file' };
const NAMED = {
  'application/pdf': 'PDF document',
  'application/zip': 'ZIP archive',
  'application/json': 'JSON file',
  'application/octet-stream': 'Other file',
  'text/plain': 'Plain text',
  'text/csv': 'CSV table',
  'text/markdown': 'Markdown text',
  'image/svg+xml': 'SVG image',
  'image/jpeg': 'JPEG image',
};

/** "image/png" -> "PNG image". */
export function typeName(mime) {
  const m = String(mime ?? '');
  if (NAMED[m]) return NAMED[m];
  const [top, sub = ''] = m.split('/');
  const short = sub
    .replace(/^(x-|vnd\.)/, '')
    .replace(/\+.*$/, '')
    .split('.')
    .pop();
  return short ? `${short.toUpperCase()} ${KINDS[top] ?? 'file'}` : 'Unknown type';
}

/** "2026-11" -> "Nov 2026". */
const monthName = (ym) => {
  const [y, m] = String(ym).split('-').map(Number);
  return y && m ? new Date(Date.UTC(y, m - 1, 1)).toLocaleDateString(undefined, { month: 'short', year: 'numeric', timeZone: 'UTC' }) : '-';
};

export const CmsWidget = defineWidget({
  tag: 'cms-widget-media-storage-analytics',
  endpoint: '/api/media/analytics',
  title: 'Media storage',
  view: (a) => {
    if (!a.total?.count) return empty('No files yet. ', el('a', { href: '/admin/media' }, 'Upload some under Media.'));
    const folders = a.byFolder.filter((f) => f.count > 0);
    return stack(
      lead(el('a', { href: '/admin/media' }, plural(a.total.count, 'file')), `, ${bytes(a.total.bytes)} in total`),
      table(
        ['Type', 'Files', 'Size'],
        a.byType.slice(0, 8).map((t) => [clip(typeName(t.type)), number(t.count, 0), bytes(t.bytes)]),
        { numeric: [1, 2] },
      ),
      folders.length > 1 || (folders.length === 1 && folders[0].name)
        ? table(
            ['Folder', 'Files', 'Size'],
            folders.slice(0, 8).map((f) => [clip(f.name ?? 'Top level'), number(f.count, 0), bytes(f.bytes)]),
            { numeric: [1, 2] },
          )
        : null,
      a.byMonth.length > 1
        ? table(
            ['Uploaded in', 'Files', 'Size'],
            a.byMonth
              .slice(-6)
              .reverse()
              .map((m) => [monthName(m.month), number(m.count, 0), bytes(m.bytes)]),
            { numeric: [1, 2] },
          )
        : null,
    );
  },
});

// <cms-widget-last5-media>: Latest media: a thumbnail (images), the file name linked to the library, its
// type and when it was uploaded. Fetches /api/dashboard/last5media.
import { defineWidget, el, relativeTime, rows } from '../widget-element.js';

function thumbOf(m) {
  const t = m.thumbnails && (m.thumbnails.sm || m.thumbnails.md);
  if (t) return t.url;
  return /^image\/(png|jpe?g|gif|webp|avif)$/.test(String(m.mimeType)) ? m.url : null;
}

export const CmsWidget = defineWidget({
  tag: 'cms-widget-last5-media',
  endpoint: '/api/dashboard/last5media',
  title: 'Latest media',
  view: (items) =>
    items.length
      ? rows(
          items,
          (m) => {
            const thumb = thumbOf(m);
            return [
              thumb ? el('img', { src: thumb, alt: '', width: 40, height: 40, loading: 'lazy', className: 'cms-thumb' }) : null,
              el('a', { href: '/admin/media', className: 'cms-title' }, String(m.filename ?? m.originalName ?? m._id)),
              el('span', { className: 'cms-muted' }, ` ${String(m.mimeType ?? '').split('/')[1] ?? ''} · ${relativeTime(m.createdAt)}`),
            ];
          },
          'cms-media-row',
        )
      : el('p', { className: 'cms-muted' }, 'No files yet. Upload some under Media.'),
});

// <cms-widget-last5-content>: Latest content: each entry's title linked to its editor, its collection,
// status and when it changed. Fetches /api/dashboard/last5-content.
import { defineWidget, el, relativeTime, rows } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-last5-content',
  endpoint: '/api/dashboard/last5-content',
  title: 'Latest content',
  view: (items) =>
    items.length
      ? rows(items, (e) => [
          el(
            'a',
            { href: `/admin/content/${encodeURIComponent(e.collection)}/${encodeURIComponent(e.id)}`, className: 'cms-title' },
            e.title,
          ),
          el('span', { className: 'cms-muted' }, ` ${e.collection} · ${e.status} · ${relativeTime(e.updatedAt)}`),
        ])
      : el('p', { className: 'cms-muted' }, 'No entries yet. Create one under Content.'),
});

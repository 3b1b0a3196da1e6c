// <cms-widget-tenant-analytics>: Tenant analytics in words: people (by role, online now; linked to Users),
// entries per collection (linked to each collection) and media files. Fetches /api/dashboard/tenant-analytics.
import { clip, defineWidget, el, empty, facts, label, lead, number, plural, stack, table } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-tenant-analytics',
  endpoint: '/api/dashboard/tenant-analytics',
  title: 'Tenant analytics',
  view: (t) => {
    const u = t.users;
    const roles = Object.entries(u.byRole ?? {})
      .sort(([, a], [, b]) => b - a)
      .map(([role, n]) => `${number(n, 0)} ${label(role).toLowerCase()}`)
      .join(', ');
    const collections = Object.entries(t.content.byCollection ?? {}).sort(([, a], [, b]) => b - a);
    return stack(
      lead(
        el('a', { href: '/admin/users' }, plural(u.total, 'user')),
        roles ? ` (${roles})` : '',
        `, ${number(t.online.users, 0)} online now`,
      ),
      facts([
        ['Active', number(u.active, 0)],
        ['Blocked or locked', number(u.blocked + u.locked, 0)],
        ['New in 30 days', number(u.createdLast30Days, 0)],
        ['Media', el('a', { href: '/admin/media' }, plural(t.media.count, 'file'))],
        ['Tenant', /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(t.tenantId) ? null : clip(t.tenantId)],
      ]),
      collections.length
        ? table(
            ['Collection', 'Entries'],
            collections
              .slice(0, 10)
              .map(([name, n]) => [
                el('a', { href: `/admin/content/${encodeURIComponent(name)}`, className: 'cms-clip', title: name }, name),
                number(n, 0),
              ]),
            { numeric: [1], caption: `${plural(t.content.entries, 'entry', 'entries')} in ${plural(t.content.collections, 'collection')}` },
          )
        : empty('No collections yet. Create one under Content.'),
    );
  },
});

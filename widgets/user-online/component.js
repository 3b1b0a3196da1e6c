// <cms-widget-user-online>: Users online in words: how many people and sessions, then each person by name
// (linked to Users, email as the title), their role, since when and last activity. Fetches /api/dashboard/online-user.
import { badge, defineWidget, el, empty, label, lead, plural, rows, stack, when } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-user-online',
  endpoint: '/api/dashboard/online-user',
  title: 'Users online',
  view: (o) =>
    o.users.length
      ? stack(
          lead(`${plural(o.count, 'person', 'people')} signed in, ${plural(o.sessions, 'session')}`),
          rows(o.users, (u) => [
            el('a', { href: '/admin/users', className: 'cms-title', title: u.email }, u.username || u.email),
            ' ',
            badge(label(u.role)),
            el(
              'span',
              { className: 'cms-muted cms-line' },
              'signed in ',
              when(u.since),
              ', active ',
              when(u.lastActiveAt),
              u.sessions > 1 ? ` · ${plural(u.sessions, 'session')}` : '',
            ),
          ]),
        )
      : empty('Nobody is signed in right now.'),
});

// <cms-widget-scim-status>: Provisioning status in words: a status badge, users active, blocked and locked
// (linked to Users), new in the last 30 days, 2FA enrolment and the roles. Fetches /api/dashboard/scim.
import { badge, defineWidget, el, empty, facts, label, lead, number, percent, plural, stack, when } from '../widget-element.js';

const STATUS = { healthy: ['Healthy', 'ok'], degraded: ['Degraded', 'bad'], empty: ['No users yet', ''] };

export const CmsWidget = defineWidget({
  tag: 'cms-widget-scim-status',
  endpoint: '/api/dashboard/scim',
  title: 'Provisioning status',
  view: (s) => {
    const [word, tone] = STATUS[s.status] ?? [s.status, ''];
    if (!s.totalUsers) return empty('No users provisioned yet.');
    const roles = Object.entries(s.byRole ?? {})
      .sort(([, a], [, b]) => b - a)
      .map(([role, n]) => `${number(n, 0)} ${label(role).toLowerCase()}`)
      .join(', ');
    return stack(
      lead(badge(word, tone), ' ', el('a', { href: '/admin/users' }, plural(s.totalUsers, 'user')), `, ${number(s.activeUsers, 0)} active`),
      facts([
        ['Blocked', number(s.blockedUsers, 0)],
        ['Locked', number(s.lockedUsers, 0)],
        ['New in 30 days', number(s.provisionedLast30Days, 0)],
        ['Two-factor', `${number(s.twoFactorEnabled, 0)} of ${number(s.totalUsers, 0)} (${percent(s.twoFactorEnabled / s.totalUsers)})`],
        ['Roles', roles || 'none'],
      ]),
      el('p', { className: 'cms-muted' }, 'Checked ', when(s.checkedAt)),
    );
  },
});

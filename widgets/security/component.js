// <cms-widget-security>: Security in words: the threat level as a badge, the active threats (each with its
// severity and description), recent lockouts with when, and the figures (locked accounts linked to Users,
// failed sign-ins, rate-limit hits, 2FA coverage). Fetches /api/dashboard/security.
import { badge, defineWidget, el, empty, facts, lead, number, percent, plural, rows, stack, when } from '../widget-element.js';

const LEVEL_TONE = { low: 'ok', medium: 'warn', high: 'bad', critical: 'bad' };

export const CmsWidget = defineWidget({
  tag: 'cms-widget-security',
  endpoint: '/api/dashboard/security',
  title: 'Security',
  view: (s) =>
    stack(
      lead('Threat level ', badge(s.threatLevel, LEVEL_TONE[s.threatLevel] ?? '')),
      s.activeThreats.length
        ? rows(s.activeThreats, (t) => [badge(t.severity), ' ', el('span', { className: 'cms-message' }, t.description)])
        : empty('No active threats.'),
      s.recentLockouts.length
        ? el(
            'div',
            {},
            el('h4', {}, 'Recent lockouts'),
            rows(s.recentLockouts.slice(0, 5), (l) => [
              el('span', { className: 'cms-message' }, l.message),
              el('span', { className: 'cms-muted cms-line' }, when(l.timestamp)),
            ]),
          )
        : null,
      facts([
        [
          'Locked accounts',
          s.lockedAccounts ? el('a', { href: '/admin/users', title: 'Open Users' }, plural(s.lockedAccounts, 'account')) : 'none',
        ],
        ['Blocked accounts', s.blockedAccounts ? el('a', { href: '/admin/users' }, plural(s.blockedAccounts, 'account')) : 'none'],
        ['Failed sign-ins', `${number(s.failedSignInsLast15Minutes, 0)} in the last 15 min`],
        ['Rate-limited requests', number(s.rateLimitHits, 0)],
        ['Failed 2FA checks', number(s.failedTwoFactor, 0)],
        ['High-severity events', number(s.highSeverityEvents, 0)],
        ['Users with 2FA', percent(s.twoFactorCoverage)],
      ]),
    ),
});

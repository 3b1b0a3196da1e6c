// <cms-widget-audit-log>: Audit log in words: the newest events, each with its message, a severity badge (medium
// and above), what kind of event it was and when ("Auth: sign in failed · 3 min ago"). Fetches /api/dashboard/audit.
import { badge, defineWidget, el, empty, label, rows, when } from '../widget-element.js';

/** "auth" + "sign-in.failed" -> "Auth: sign in failed". */
const kind = (e) => `${label(e.domain || 'system')}: ${String(e.operation || e.action || '').replace(/[.\-_]+/g, ' ')}`;

export const CmsWidget = defineWidget({
  tag: 'cms-widget-audit-log',
  endpoint: '/api/dashboard/audit',
  title: 'Audit log',
  view: (items) =>
    items.length
      ? rows(items, (e) => [
          e.level && e.level !== 'low' ? badge(e.level) : null,
          el('span', { className: 'cms-message' }, e.message || kind(e)),
          el('span', { className: 'cms-muted cms-line' }, `${kind(e)}${e.outcome === 'failure' ? ' (failed)' : ''} · `, when(e.timestamp)),
        ])
      : empty('No audit events yet. Sign-ins, changes to content and settings appear here.'),
});

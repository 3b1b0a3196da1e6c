// <cms-widget-system-messages>: System messages in words: counts by severity as badges, then the messages,
// the most severe first, each with its badge and when. Fetches /api/dashboard/system-messages.
import { badge, defineWidget, el, empty, label, number, rows, stack, when } from '../widget-element.js';

const SEVERITIES = ['critical', 'high', 'medium', 'low'];
/** "auth.sign-in.failed" -> "Auth: sign in failed". */
const kind = (title) => {
  const [domain, ...rest] = String(title).split('.');
  return rest.length ? `${label(domain)}: ${rest.join(' ').replace(/[-_]+/g, ' ')}` : label(domain);
};

export const CmsWidget = defineWidget({
  tag: 'cms-widget-system-messages',
  endpoint: '/api/dashboard/system-messages',
  title: 'System messages',
  view: (m) =>
    m.messages.length
      ? stack(
          el(
            'p',
            { className: 'cms-badges' },
            ...SEVERITIES.filter((s) => m.bySeverity?.[s]).map((s) => badge(`${number(m.bySeverity[s], 0)} ${s}`, badgeTone(s))),
          ),
          rows(m.messages, (x) => [
            badge(x.severity),
            el('span', { className: 'cms-message' }, x.message),
            el('span', { className: 'cms-muted cms-line' }, `${kind(x.title)} · `, when(x.timestamp)),
          ]),
        )
      : empty('No messages. Warnings and errors from the audit log appear here.'),
});

function badgeTone(severity) {
  return severity === 'medium' ? 'warn' : severity === 'high' || severity === 'critical' ? 'bad' : '';
}

// <cms-widget-logs>: Logs in words: how many events the audit log holds, then the newest with a severity
// badge, the message and when. Fetches /api/dashboard/logs.
import { badge, defineWidget, el, empty, number, plural, rows, stack, when } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-logs',
  endpoint: '/api/dashboard/logs',
  title: 'Logs',
  view: (log) =>
    log.items.length
      ? stack(
          el(
            'p',
            { className: 'cms-muted' },
            log.total > log.items.length
              ? `The newest ${number(log.items.length, 0)} of ${plural(log.total, 'event')}`
              : plural(log.total, 'event'),
          ),
          rows(
            log.items,
            (e) => [
              el('span', { className: 'cms-muted cms-when' }, when(e.timestamp)),
              badge(e.level || 'low'),
              el('span', { className: 'cms-message' }, e.message || e.action),
            ],
            'cms-log-row',
          ),
        )
      : empty('No log entries yet.'),
});

// <cms-widget-system-health>: System health in words ("Healthy, up 2 h 11 min"), with the database and
// cache and how fast they answer. Fetches /api/dashboard/health.
import { defineWidget, duration, el } from '../widget-element.js';

const WORDS = { healthy: 'Healthy', degraded: 'Degraded', starting: 'Starting' };

function reach(name, check) {
  const ok = check && (check.status === 'ok' || check.reachable === true || check.ok === true);
  const latency = check && typeof check.latencyMs === 'number' ? `, ${Math.round(check.latencyMs)} ms` : '';
  const kind = check && (check.type || check.backend) ? ` (${check.type || check.backend})` : '';
  return el('li', { className: ok ? 'ok' : 'bad' }, `${name}${kind}: ${ok ? 'reachable' : 'not reachable'}${latency}`);
}

export const CmsWidget = defineWidget({
  tag: 'cms-widget-system-health',
  endpoint: '/api/dashboard/health',
  title: 'System health',
  view: (h) =>
    el(
      'div',
      { className: 'cms-health' },
      el('p', { className: `cms-health-status ${h.status}` }, `${WORDS[h.status] ?? h.status}, up ${duration(h.uptime)}`),
      el('ul', { className: 'cms-plain' }, reach('Database', h.database), reach('Cache', h.cache)),
      el(
        'p',
        { className: 'cms-muted' },
        `Version ${h.version}${h.phase === 'WARMED' ? '' : ` · starting (${String(h.phase).toLowerCase()})`}`,
      ),
    ),
});

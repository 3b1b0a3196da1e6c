// <cms-widget-cache-monitor>: Cache monitor in words: the hit rate with hits and misses, keys stored and the
// backend, then a table per category (and per tenant when there are several); "No cache traffic yet" before
// the first operation. Fetches /api/dashboard/cache-metrics.
import { defineWidget, el, empty, label, lead, number, percent, plural, stack, table } from '../widget-element.js';

const reads = (s) => (s?.hits ?? 0) + (s?.misses ?? 0);
const rate = (s) => (reads(s) ? percent(s.hits / reads(s)) : '-');

function rows(byName) {
  return Object.entries(byName ?? {})
    .filter(([, s]) => s.totalOperations > 0)
    .sort(([, a], [, b]) => b.totalOperations - a.totalOperations)
    .slice(0, 12)
    .map(([name, s]) => [label(name), number(s.hits, 0), number(s.misses, 0), rate(s), number(s.size, 0)]);
}

export const CmsWidget = defineWidget({
  tag: 'cms-widget-cache-monitor',
  endpoint: '/api/dashboard/cache-metrics',
  title: 'Cache monitor',
  view: (c) => {
    const o = c.overall ?? {};
    const backend = c.backend ? ` in ${c.backend === 'redis' ? 'Redis' : c.backend === 'memory' ? 'memory' : c.backend}` : '';
    if (!o.totalOperations) return empty(`No cache traffic yet. ${plural(o.size ?? 0, 'key')} stored${backend}.`);
    const headers = ['Category', 'Hits', 'Misses', 'Hit rate', 'Keys'];
    const tenants = Object.keys(c.byTenant ?? {}).length > 1 ? rows(c.byTenant) : [];
    return stack(
      lead(
        reads(o)
          ? `Hit rate ${percent(o.hits / reads(o))}: ${plural(o.hits, 'hit')}, ${plural(o.misses, 'miss', 'misses')}`
          : 'No cache reads yet',
      ),
      el(
        'p',
        { className: 'cms-muted' },
        `${plural(o.size ?? 0, 'key')} stored${backend}, ${plural(o.sets ?? 0, 'write')}, ${plural(o.deletes ?? 0, 'delete')}`,
      ),
      table(headers, rows(c.byCategory), { numeric: [1, 2, 3, 4] }),
      tenants.length ? table(['Tenant', ...headers.slice(1)], tenants, { numeric: [1, 2, 3, 4] }) : null,
    );
  },
});

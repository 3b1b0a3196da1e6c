// <cms-widget-unified-metrics>: API metrics in words: requests since when and the error rate, responses by
// status class, the busiest routes (hits, errors, average time), the cache hit rate, and the process (memory,
// uptime, Node version). Fetches /api/dashboard/metrics?detailed=true.
import {
  bytes,
  clip,
  defineWidget,
  duration,
  el,
  empty,
  facts,
  lead,
  number,
  percent,
  plural,
  stack,
  table,
  when,
} from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-unified-metrics',
  endpoint: '/api/dashboard/metrics?detailed=true',
  title: 'API metrics',
  view: (m) => {
    const status = Object.entries(m.status ?? {})
      .filter(([k, n]) => k !== 'rateLimited' && n > 0)
      .map(([k, n]) => `${number(n, 0)} × ${k}`)
      .join(', ');
    const cacheReads = (m.cache?.hits ?? 0) + (m.cache?.misses ?? 0);
    return stack(
      m.apiHits
        ? lead(`${plural(m.apiHits, 'request')} since `, when(m.since), `, ${percent(m.errorRate)} errors`)
        : empty('No API requests counted yet.'),
      m.apiHits
        ? el(
            'p',
            { className: 'cms-muted' },
            `Responses: ${status || 'none'}${m.status?.rateLimited ? `; ${number(m.status.rateLimited, 0)} rate-limited` : ''}`,
          )
        : null,
      m.routes?.length
        ? table(
            ['Busiest routes', 'Hits', 'Errors', 'Avg'],
            m.routes
              .slice(0, 5)
              .map((r) => [clip(`${r.method} ${r.route}`), number(r.hits, 0), percent(r.errorRate), `${number(r.avgMs, 0)} ms`]),
            { numeric: [1, 2, 3] },
          )
        : null,
      facts([
        ['Cache', cacheReads ? `${percent(m.cache.hits / cacheReads)} hit rate over ${plural(cacheReads, 'read')}` : 'no reads yet'],
        ['Memory', m.memory ? `${bytes(m.memory.heapUsed)} heap of ${bytes(m.memory.heapTotal)}, ${bytes(m.memory.rss)} resident` : null],
        ['Process', m.runtime ? `Node ${m.runtime.version} on ${m.runtime.platform} ${m.runtime.arch}, up ${duration(m.uptime)}` : null],
      ]),
    );
  },
});

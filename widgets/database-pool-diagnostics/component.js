// <cms-widget-database-pool-diagnostics>: Database pool in words: the database, whether it answers and how
// fast ("SQLite: reachable, 0.6 ms"), then connections in use, idle and waiting out of the pool's maximum.
// Fetches /api/database/pool-diagnostics.
import { badge, defineWidget, el, empty, facts, lead, number, stack } from '../widget-element.js';

const DIALECTS = { sqlite: 'SQLite', mariadb: 'MariaDB', mysql: 'MySQL', postgres: 'PostgreSQL' };
const STATES = { ok: 'Healthy', saturated: 'Saturated', down: 'Down' };

export const CmsWidget = defineWidget({
  tag: 'cms-widget-database-pool-diagnostics',
  endpoint: '/api/database/pool-diagnostics',
  title: 'Database pool',
  view: (d) => {
    const p = d.pool;
    return stack(
      lead(
        `${DIALECTS[d.dialect] ?? d.dialect}: ${d.reachable ? `reachable, ${number(d.latencyMs, 1)} ms` : 'not reachable'} `,
        badge(STATES[d.status] ?? d.status, d.status === 'ok' ? 'ok' : d.status === 'saturated' ? 'warn' : 'bad'),
      ),
      p
        ? facts([
            ['In use', p.max ? `${number(p.using, 0)} of ${number(p.max, 0)} connections` : number(p.using, 0)],
            ['Idle', number(p.available, 0)],
            ['Open', number(p.size, 0)],
            ['Waiting', p.waiting ? el('strong', { className: 'cms-bad' }, `${number(p.waiting, 0)} requests`) : 'none'],
          ])
        : empty('This database has no connection pool.'),
    );
  },
});

import { z } from 'zod';
import { definePlugin, NotReadyError, ServiceUnavailableError, defineRoute } from '../../kernel/sdk.js';
import { DatabaseProbe } from './database-probe.js';

const SERVING = new Set(['READY', 'FULL', 'WARMED']);

export default definePlugin({
  register({ routes }) {
    let probe: DatabaseProbe | null = null;
    routes.add(
      defineRoute({
        method: 'GET',
        path: '/api/health',
        openDuring: ['boot', 'setup', 'maintenance', 'restore'],
        permission: 'public',
        summary: 'Liveness probe for load balancers and process supervisors',
        description:
          '200 once the instance serves requests (phase READY or later); 503 SERVICE_UNAVAILABLE before that and while shutting down. Touches no database: a failing dependency does not make the process look dead (see /api/health/ready). With read replicas (DB_READ_URLS), `status` is `degraded` while a replica is down or lags (reads then go to the primary, or the writer waits longer for its writes to show), and `replicas` lists them (named replica-1, replica-2, ... in DB_READ_URLS order, no addresses) from their last check (every 0.5 s).',
        tags: ['system'],
        rateLimit: false,
        request: {},
        response: z.object({
          status: z.enum(['ok', 'degraded']),
          phase: z.string(),
          uptimeSeconds: z.number(),
          version: z.string(),
          replicas: z
            .object({
              readsOnReplicas: z.boolean(),
              list: z.array(z.object({ name: z.string(), state: z.enum(['ok', 'lagging', 'down']), lagMs: z.number() })),
            })
            .optional(),
        }),
        handler({ scope }) {
          const state = scope.kernelState;
          const phase = state.phase();
          if (!SERVING.has(phase)) throw new ServiceUnavailableError(`The instance is in phase ${phase}; not serving yet`);
          const replicas = scope.readRouting.status();
          return {
            status: replicas?.degraded ? ('degraded' as const) : ('ok' as const),
            phase,
            uptimeSeconds: Math.round(process.uptime()),
            version: state.version,
            ...(replicas
              ? {
                  replicas: {
                    readsOnReplicas: replicas.readsOnReplicas,
                    list: replicas.replicas.map((r, i) => ({ name: `replica-${i + 1}`, state: r.state, lagMs: r.lagMs })),
                  },
                }
              : {}),
          };
        },
      }),
    );
    routes.add(
      defineRoute({
        method: 'GET',
        path: '/api/health/ready',
        openDuring: ['setup', 'maintenance', 'restore'],
        readinessProbe: true,
        permission: 'public',
        summary: 'Readiness probe for load balancers',
        description:
          '200 while the instance should get traffic; 503 NOT_READY before READY, from the moment shutdown starts (during the http.shutdownDrainMs drain requests are still served) and while the database does not answer a cheap query (checked at most once a second).',
        tags: ['system'],
        rateLimit: false,
        request: {},
        response: z.object({ status: z.literal('ready'), phase: z.string(), instanceId: z.string() }),
        async handler({ scope }) {
          const state = scope.kernelState;
          const phase = state.phase();
          if (state.draining()) throw new NotReadyError('The instance is shutting down');
          if (!SERVING.has(phase)) throw new NotReadyError(`The instance is in phase ${phase}; not serving yet`);
          probe ??= new DatabaseProbe(scope.sequelize);
          const db = await probe.check();
          if (!db.ok) throw new NotReadyError(`The database is unreachable (${db.reason})`);
          return { status: 'ready', phase, instanceId: state.instanceId };
        },
      }),
    );
  },
});

import { z } from 'zod';
import { definePlugin } from '../../kernel/index.js';
import { ServiceUnavailableError } from '../../kernel/errors.js';
import { defineRoute } from '../../kernel/http/route-table.js';

const SERVING = new Set(['READY', 'FULL', 'WARMED']);

export default definePlugin({
  register({ routes }) {
    routes.add(
      defineRoute({
        method: 'GET',
        path: '/api/health',
        permission: 'public',
        summary: 'Liveness and readiness probe for load balancers',
        description:
          '200 once the instance serves requests (phase READY or later); 503 SERVICE_UNAVAILABLE before that and while shutting down.',
        tags: ['system'],
        rateLimit: false,
        request: {},
        response: z.object({ status: z.literal('ok'), phase: z.string(), uptimeSeconds: z.number(), version: z.string() }),
        handler({ scope }) {
          const state = scope.kernelState;
          const phase = state.phase();
          if (!SERVING.has(phase)) throw new ServiceUnavailableError(`The instance is in phase ${phase}; not serving yet`);
          return { status: 'ok', phase, uptimeSeconds: Math.round(process.uptime()), version: state.version };
        },
      }),
    );
  },
});

import {
  AuthenticationRequiredError,
  ForbiddenError,
  type BusEvent,
  type EventBus,
  hasPermission,
  type Identity,
} from '../../kernel/sdk.js';
import type { GraphqlContribution } from '../graphql/public.js';
import { EventStreamLimitError } from './errors.js';
import { STREAM_PERMISSION } from './completion-stream.js';
import { DATA_OPERATION_COMPLETED, type DataOperationCompleted } from './public.js';

/** What the GraphQL plugin's context gives a resolver (the identity is read at each event: it may change on a socket). */
interface Context {
  readonly identity: Identity;
  streams?: { open: number; readonly max: number } | null;
}

const MAX_QUEUED = 100;

/** An async iterator over the bus events one subscriber may see (bounded queue; return() unsubscribes). */
function completions(
  events: Pick<EventBus, 'subscribe'>,
  ctx: Context,
  domain: string | null,
): AsyncIterableIterator<DataOperationCompleted> {
  const queue: DataOperationCompleted[] = [];
  let waiting: ((r: IteratorResult<DataOperationCompleted>) => void) | null = null;
  let done = false;
  if (ctx.streams) {
    if (ctx.streams.open >= ctx.streams.max) throw new EventStreamLimitError();
    ctx.streams.open++;
  }
  const unsubscribe = events.subscribe(DATA_OPERATION_COMPLETED, (event: BusEvent) => {
    const payload = event.payload as DataOperationCompleted;
    if (done || payload?.tenantId !== ctx.identity.tenantId || ctx.identity.kind === 'guest') return;
    if (domain && payload.domain !== domain) return;
    if (waiting) {
      const resolve = waiting;
      waiting = null;
      resolve({ value: payload, done: false });
    } else {
      queue.push(payload);
      if (queue.length > MAX_QUEUED) queue.shift();
    }
  });
  const finish = (): Promise<IteratorResult<DataOperationCompleted>> => {
    if (!done) {
      done = true;
      unsubscribe();
      if (ctx.streams) ctx.streams.open--;
      queue.length = 0;
      waiting?.({ value: undefined, done: true });
      waiting = null;
    }
    return Promise.resolve({ value: undefined, done: true });
  };
  return {
    next() {
      if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
    return: finish,
    throw: finish,
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * `subscription { dataOperationCompleted(domain: String) { domain planId jobId outcome summary {...} durationMs } }`:
 * what GET /api/data-ops/events sends, over the GraphQL WebSocket (dashboard:read; its tenant only).
 */
export function dataOpsGraphql(events: () => Pick<EventBus, 'subscribe'>): GraphqlContribution {
  return {
    id: 'data-ops',
    typeDefs: `
      type DataOperationSummary { created: Int! updated: Int! deleted: Int! skipped: Int! failed: Int! }
      type DataOperationCompleted {
        domain: String!
        planId: String!
        jobId: String
        tenantId: String!
        outcome: String!
        summary: DataOperationSummary!
        durationMs: Int!
      }
      extend type Subscription {
        "A data operation (config, migration, backup... apply) finished, on any instance (dashboard:read; your tenant only)."
        dataOperationCompleted(domain: String): DataOperationCompleted!
      }
    `,
    resolvers: {
      Subscription: {
        dataOperationCompleted: {
          subscribe(_root: unknown, args: { domain?: string | null }, ctx: Context) {
            if (ctx.identity.kind === 'guest') throw new AuthenticationRequiredError();
            if (!hasPermission(ctx.identity, STREAM_PERMISSION))
              throw new ForbiddenError(`This needs the permission '${STREAM_PERMISSION}'`);
            return completions(events(), ctx, args.domain ?? null);
          },
          resolve: (value: unknown) => value,
        },
      },
    },
  };
}

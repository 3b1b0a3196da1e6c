import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';

/** plugins.options.graphql; GRAPHQL_EXPLORER wins (merged and validated by the kernel). */
export const optionsSchema = z
  .object({
    /** Deepest field nesting an operation may select (introspection fields are not counted). */
    maxDepth: z.number().int().min(2).max(50).default(10),
    /**
     * Highest estimated cost: a root or relation field costs 1 plus its selection, a list query
     * 1 + limit x (1 + the cost of what each item selects); scalar fields cost nothing.
     */
    maxCost: z.number().int().min(10).max(1_000_000).default(1000),
    /** Longest query document, in characters. */
    maxQueryLength: z.number().int().min(100).max(1_000_000).default(20_000),
    /** Whether __schema and __type may be asked (by callers holding content:read). */
    introspection: z.boolean().default(true),
    /** Largest WebSocket message, in bytes. */
    maxMessageBytes: z
      .number()
      .int()
      .min(1024)
      .max(10 * 1024 * 1024)
      .default(256 * 1024),
    /** How often a WebSocket connection's identity is resolved again (a revoked session ends it); 0: never. */
    recheckSeconds: z.number().min(0).max(3600).default(60),
    /** Ping interval of WebSocket connections; a client that does not answer within it is dropped. */
    keepAliveSeconds: z.number().min(1).max(600).default(15),
    /** Subscriptions one WebSocket connection may hold at once. */
    maxSubscriptionsPerConnection: z.number().int().min(1).max(10_000).default(100),
    /** Events a slow subscriber may have waiting before the oldest are dropped. */
    maxQueuedEvents: z.number().int().min(1).max(100_000).default(1000),
    /** GRAPHQL_EXPLORER: GraphiQL at GET /api/graphql for signed-in browsers that may read content; `auto` (default) and `on`: in every environment, `off`: never. */
    explorer: z.enum(['auto', 'on', 'off']).default('auto'),
  })
  .strict();

export type GraphqlOptions = z.output<typeof optionsSchema>;

const EXPLORER_MODES = ['auto', 'on', 'off'];

/** GRAPHQL_EXPLORER is read before the kernel's merge: another value stops the boot with this plugin's own message. */
export function readGraphqlEnv(values: Record<string, unknown>): Record<string, unknown> {
  if (values.explorer !== undefined && !EXPLORER_MODES.includes(String(values.explorer)))
    throw new BootError(`GRAPHQL_EXPLORER must be auto, on or off (got ${JSON.stringify(values.explorer)})`);
  return values;
}

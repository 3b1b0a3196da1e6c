import type { Identity } from '../../kernel/sdk.js';

/**
 * The context of every operation. `identity` is read through a getter: over WebSocket it is the
 * connection's identity, which a periodic re-check may change (or end) while a subscription runs.
 */
export interface GraphqlContext {
  readonly identity: Identity;
  /** Per operation: related entries already loaded (null for subscriptions, which live long). */
  memo: Map<string, Promise<unknown>> | null;
  /** Over WebSocket: the connection's subscriptions, open and allowed. */
  streams: StreamBudget | null;
  /** The source stream of a group of subscribers (subscription-fanout.ts): its members are counted, not it. */
  readonly sharedSource: boolean;
}

export interface StreamBudget {
  open: number;
  readonly max: number;
}

export function contextFor(
  identity: () => Identity,
  operation: string,
  streams: StreamBudget | null = null,
  sharedSource = false,
): GraphqlContext {
  return {
    get identity() {
      return identity();
    },
    memo: operation === 'subscription' ? null : new Map(),
    streams,
    sharedSource,
  };
}

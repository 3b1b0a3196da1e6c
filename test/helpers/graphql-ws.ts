/** graphql-transport-ws and legacy graphql-ws clients for the subscription tests, and an inbox of what they receive. */
import { createClient, type Client } from 'graphql-ws';
import legacy from 'subscriptions-transport-ws';
import WebSocket from 'ws';
import type { TestKernel } from './kernel.js';

/** Values a subscription delivers, awaited one by one with a time limit. */
export class Inbox<T = any> {
  private readonly values: T[] = [];
  private waiter: (() => void) | null = null;
  error: unknown = null;
  closed: { code: number; reason: string } | null = null;

  push = (value: T) => {
    this.values.push(value);
    this.wake();
  };
  fail = (err: unknown) => {
    this.error = err;
    this.wake();
  };
  private wake() {
    this.waiter?.();
    this.waiter = null;
  }

  async next(ms = 5000): Promise<T> {
    const deadline = Date.now() + ms;
    while (!this.values.length) {
      if (this.error) throw new Error(`subscription failed: ${JSON.stringify(this.error)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`nothing arrived within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.values.shift()!;
  }

  get pending(): number {
    return this.values.length;
  }
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const wsUrl = (t: TestKernel) => `${t.url.replace(/^http/, 'ws')}/api/graphql`;
const withHeaders = (headers: Record<string, string>) =>
  class extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  };

/** A graphql-transport-ws client (the graphql-ws package); `closed` records how the server closed it. */
export function modernClient(
  t: TestKernel,
  options: { headers?: Record<string, string>; connectionParams?: Record<string, unknown>; generateID?: () => string } = {},
) {
  const closes: Array<{ code: number; reason: string }> = [];
  const client: Client = createClient({
    url: wsUrl(t),
    webSocketImpl: withHeaders(options.headers ?? {}),
    retryAttempts: 0,
    lazy: true,
    connectionParams: options.connectionParams,
    ...(options.generateID ? { generateID: options.generateID } : {}),
    on: { closed: (e) => void closes.push({ code: (e as { code: number }).code, reason: String((e as { reason: string }).reason) }) },
  });
  const subscribe = (query: string): Inbox => {
    const inbox = new Inbox();
    client.subscribe({ query }, { next: inbox.push, error: inbox.fail, complete: () => undefined });
    return inbox;
  };
  return { client, subscribe, closes, dispose: () => client.dispose() };
}

/** A legacy graphql-ws client (subscriptions-transport-ws); `connectionErrors` are the server's connection_error payloads. */
export function legacyClient(
  t: TestKernel,
  options: { headers?: Record<string, string>; connectionParams?: Record<string, unknown> } = {},
) {
  const connectionErrors: unknown[] = [];
  const client = new legacy.SubscriptionClient(
    wsUrl(t),
    {
      reconnect: false,
      connectionParams: options.connectionParams,
      wsOptionArguments: [{ headers: options.headers ?? {} }],
      connectionCallback: (error: unknown) => void (error && connectionErrors.push(error)),
    },
    WebSocket,
  );
  const subscribe = (query: string): Inbox => {
    const inbox = new Inbox();
    client.request({ query }).subscribe({ next: inbox.push, error: inbox.fail });
    return inbox;
  };
  return { client, subscribe, connectionErrors, dispose: () => client.close() };
}

/** Headers of the test-identity fixture plugin: a role, optionally another tenant and another user id (x-test-user). */
export const testHeaders = (identity: string, tenant?: string, user?: string) => ({
  'x-test-identity': identity,
  ...(tenant ? { 'x-test-tenant': tenant } : {}),
  ...(user ? { 'x-test-user': user } : {}),
});

// GraphQL subscriptions over the WebSocket at /api/graphql, in the graphql-transport-ws protocol (the `graphql-ws`
// package's; the kernel speaks it and the legacy `graphql-ws` subprotocol of subscriptions-transport-ws on the same
// path, chosen by subprotocol: docs/features/graphql.md). The global WebSocket of the runtime (browsers, Deno, Bun,
// edge workers, Node 22+; Node 20 has it behind --experimental-websocket) or one given in the options (the `ws`
// package's). One socket per helper, opened at the first subscription, shared by the subscriptions; the client's
// token goes in the connection parameters (a session is the browser's cookie, sent with the upgrade on the same origin).
//
//   const live = subscriptions(client);
//   for await (const { postAdded } of live.subscribe<{ postAdded: { _id: string; title: string } }>(
//     'subscription { postAdded { _id title } }')) console.log(postAdded.title);
import { CmsError, type CmsErrorCode } from './errors.js';
import type { GraphQLErrorItem } from './client.js';

export const PROTOCOL = 'graphql-transport-ws';

/** The WebSocket the helper needs: the standard constructor (url, protocols) and its events. */
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocket;

export interface SubscriptionsOptions {
  /** Another WebSocket constructor (default: the global WebSocket). */
  webSocket?: WebSocketConstructor;
  /** Extra connection parameters (the token of the client is sent as `authorization` already). */
  connectionParams?: Record<string, unknown>;
  /** How long to wait for the server to accept the connection (default 10 s). */
  connectTimeoutMs?: number;
  /** Values kept for a subscription whose loop has not asked for them yet; older ones are dropped beyond (default 1000). */
  maxQueued?: number;
}

/** A running subscription: an async iterator of its results' `data`; break out of the loop (or call unsubscribe) to stop it. */
export interface Subscription<D> extends AsyncIterableIterator<D> {
  readonly id: string;
  /** Values dropped because the loop did not keep up (beyond maxQueued). */
  readonly dropped: number;
  unsubscribe(): void;
}

export interface Subscriptions {
  subscribe<D = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, operationName?: string): Subscription<D>;
  /** Resolves once the server has accepted the connection (opening it if needed). */
  connected(): Promise<void>;
  /** Closes the socket: every subscription ends. */
  close(): void;
}

/** What the helper needs of a client: its address and its bearer token. */
export interface SubscriptionTarget {
  readonly url: string;
  readonly token: string | undefined;
}

type Message =
  | { type: 'connection_ack' | 'ping' | 'pong'; payload?: unknown }
  | { type: 'next'; id: string; payload: { data?: unknown; errors?: GraphQLErrorItem[] } }
  | { type: 'error'; id: string; payload: GraphQLErrorItem[] }
  | { type: 'complete'; id: string };

interface Sink {
  next(data: unknown): void;
  fail(err: CmsError): void;
  done(): void;
}

const closedError = (code: number, reason: string) =>
  new CmsError('SUBSCRIPTION_CLOSED', reason || `The subscription socket closed (code ${code})`, 0, { closeCode: code, reason });

/** The subscriptions helper of a client (see the module comment). */
export function subscriptions(client: SubscriptionTarget, options: SubscriptionsOptions = {}): Subscriptions {
  const sinks = new Map<string, Sink>();
  let socket: WebSocket | null = null;
  let ready: Promise<void> | null = null;
  let counter = 0;
  let closedByUs = false;

  const send = (message: object) => socket?.readyState === 1 && socket.send(JSON.stringify(message));
  const endAll = (err: CmsError | null) => {
    for (const sink of sinks.values()) {
      if (err) sink.fail(err);
      else sink.done();
    }
    sinks.clear();
  };

  function connect(): Promise<void> {
    if (ready) return ready;
    const Impl = options.webSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Impl) {
      return Promise.reject(
        new CmsError('WEBSOCKET_UNAVAILABLE', 'No WebSocket in this runtime: pass one as the webSocket option (e.g. the ws package)', 0),
      );
    }
    closedByUs = false;
    const url = `${client.url.replace(/^http/i, 'ws')}/api/graphql`;
    const ws = new Impl(url, PROTOCOL);
    socket = ws;
    ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(closedError(4408, 'The server did not accept the connection in time'));
        ws.close(4408, 'Connection acknowledgement timeout');
      }, options.connectTimeoutMs ?? 10000);
      ws.onopen = () => {
        const params = { ...options.connectionParams, ...(client.token ? { authorization: `Bearer ${client.token}` } : {}) };
        ws.send(JSON.stringify({ type: 'connection_init', payload: params }));
      };
      ws.onmessage = (event) => {
        let message: Message;
        try {
          message = JSON.parse(String(event.data)) as Message;
        } catch {
          return;
        }
        if (message.type === 'connection_ack') {
          clearTimeout(timer);
          resolve();
        } else onMessage(message);
      };
      ws.onclose = (event) => {
        clearTimeout(timer);
        const err = closedByUs ? null : closedError(event.code, event.reason);
        reject(err ?? closedError(event.code, 'closed'));
        if (socket === ws) {
          socket = null;
          ready = null;
        }
        endAll(err);
      };
      ws.onerror = () => undefined; // the close event that follows says why
    });
    ready.catch(() => undefined); // a failed connection is reported to the subscriptions waiting on it
    return ready;
  }

  function onMessage(message: Message): void {
    if (message.type === 'ping') return void send({ type: 'pong' });
    if (!('id' in message)) return;
    const sink = sinks.get(message.id);
    if (!sink) return;
    if (message.type === 'next') {
      const { data, errors } = message.payload ?? {};
      if (errors?.length) failed(message.id, sink, errors);
      else sink.next(data);
    } else if (message.type === 'error') failed(message.id, sink, message.payload);
    else if (message.type === 'complete') {
      sinks.delete(message.id);
      sink.done();
    }
  }

  function failed(id: string, sink: Sink, errors: GraphQLErrorItem[]): void {
    sinks.delete(id);
    send({ id, type: 'complete' });
    const first = errors?.[0];
    const code = (typeof first?.extensions?.code === 'string' ? first.extensions.code : 'GRAPHQL_VALIDATION_FAILED') as CmsErrorCode;
    sink.fail(new CmsError(code, first?.message ?? 'The subscription failed', 400, { errors }));
  }

  function subscribe<D>(query: string, variables?: Record<string, unknown>, operationName?: string): Subscription<D> {
    const id = String(++counter);
    const queue = new SubscriptionQueue<D>(options.maxQueued ?? 1000, () => {
      if (sinks.delete(id)) send({ id, type: 'complete' });
    });
    sinks.set(id, queue);
    connect().then(
      () => sinks.has(id) && send({ id, type: 'subscribe', payload: { query, variables, operationName } }),
      (err: CmsError) => {
        sinks.delete(id);
        queue.fail(err);
      },
    );
    return queue.iterator(id);
  }

  return {
    subscribe,
    connected: connect,
    close() {
      closedByUs = true;
      endAll(null);
      socket?.close(1000, 'Normal Closure');
      socket = null;
      ready = null;
    },
  };
}

/** The values of one subscription waiting for its loop, bounded; the loop's promise when it waits for one. */
class SubscriptionQueue<D> implements Sink {
  private readonly values: D[] = [];
  private waiting: { resolve(r: IteratorResult<D>): void; reject(e: unknown): void } | null = null;
  private error: CmsError | null = null;
  private finished = false;
  dropped = 0;

  constructor(
    private readonly max: number,
    private readonly stop: () => void,
  ) {}

  next(data: unknown): void {
    if (this.finished) return;
    if (this.waiting) {
      this.waiting.resolve({ value: data as D, done: false });
      this.waiting = null;
      return;
    }
    this.values.push(data as D);
    if (this.values.length > this.max) {
      this.values.shift();
      this.dropped++;
    }
  }

  fail(err: CmsError): void {
    if (this.finished) return;
    this.error = err;
    this.finished = true;
    this.waiting?.reject(err);
    this.waiting = null;
  }

  done(): void {
    this.finished = true;
    this.waiting?.resolve({ value: undefined, done: true });
    this.waiting = null;
  }

  iterator(id: string): Subscription<D> {
    const end = (): IteratorResult<D> => {
      this.stop();
      this.done();
      this.values.length = 0;
      return { value: undefined, done: true };
    };
    const dropped = () => this.dropped;
    return {
      id,
      get dropped() {
        return dropped();
      },
      unsubscribe: () => void end(),
      next: () => {
        if (this.values.length) return Promise.resolve({ value: this.values.shift()!, done: false });
        if (this.error) return Promise.reject(this.error);
        if (this.finished) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
      },
      return: () => Promise.resolve(end()),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }
}

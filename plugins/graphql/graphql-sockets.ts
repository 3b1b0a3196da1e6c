import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { Duplex } from 'node:stream';
import { GraphQLError, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type legacy from 'subscriptions-transport-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { AppError, SETTING_CHANGED, type EventBus, type IdentifyRequest, type Identity, type Logger } from '../../kernel/sdk.js';
import { bearerHash, onIdentityChange } from '../auth/public.js';
import { formatErrors } from './format-error.js';
import { contextFor, type StreamBudget } from './graphql-context.js';
import type { GraphqlService } from './graphql-service.js';
import type { GraphqlOptions } from './options.js';
import type { Sink } from './subscription-fanout.js';
import { authorizationFrom, closeReason, maintenanceRefusal, nextMessageSink, refuse, withoutForeignCookies } from './socket-upgrade.js';
import type { MaintenanceGate } from '../maintenance/public.js';

const require = createRequire(import.meta.url);
/** subscriptions-transport-ws (a few MB resident) loads on the first upgrade asking for its protocol, not at start. */
const legacyModule = (): typeof legacy => require('subscriptions-transport-ws') as typeof legacy;

export const MODERN_PROTOCOL = 'graphql-transport-ws';
export const LEGACY_PROTOCOL = 'graphql-ws';
/** Close codes: the identity behind the connection ended or changed (re-check), or a bad token at connection init. */
const CLOSE_IDENTITY_ENDED = 4401;
const CLOSE_FORBIDDEN = 4403;
/** Maintenance mode was switched on: connections it refuses are closed (connect again once it is off). */
const CLOSE_MAINTENANCE = 4503;
/** Connections whose identity one step of the periodic re-check resolves at once. */
const RECHECK_SLICE = 200;

interface Connection {
  socket: WebSocket;
  request: IncomingMessage;
  identity: Identity;
  /** The `Authorization` value from the connection parameters, kept for the re-check. */
  authorization?: string;
  legacy: boolean;
  alive: boolean;
  streams: StreamBudget;
  /** The HTTP server the upgrade came through. */
  server: HttpServerLike | null;
  /** The TCP socket the upgrade came on, under `socket` (the `next` messages of shared subscriptions are written to it). */
  raw: Duplex;
}

interface HttpServerLike {
  readonly listening: boolean;
}

/**
 * The WebSocket side of /api/graphql. The subprotocol picks the server: `graphql-transport-ws` (the
 * graphql-ws package) or the legacy `graphql-ws` (subscriptions-transport-ws); both run over ws 8 in
 * noServer mode. A connection is authenticated at upgrade (session cookie from this origin, or an Authorization header)
 * and again at connection init when the parameters carry a token; a bad token refuses the init.
 * Every operation passes the same checks as over HTTP. The identity is resolved again at once after an
 * event that concerns it (sign-out, session or token revocation, a user blocked, deleted or given another
 * role: the auth plugin's IDENTITY_CHANGE_EVENTS, from any instance through the event bus), and every
 * `recheckSeconds` (expiry): a connection whose session or token ended or whose user changed is closed
 * (4401); one whose permissions changed goes on with the new ones.
 */
export class GraphqlSockets {
  private readonly connections = new Map<WebSocket, Connection>();
  /** The sink of each graphql-transport-ws subscription, by its context (what graphql-ws hands to `subscribe`). */
  private readonly sinks = new WeakMap<object, Sink>();
  private readonly modern: WebSocketServer;
  private readonly legacyWss: WebSocketServer;
  /** Made on the first legacy-protocol upgrade. */
  private legacyServer: legacy.SubscriptionServer | null = null;
  private readonly disposeModern: () => Promise<void>;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly servers = new Set<HttpServerLike>();
  private closing = false;
  private rechecking = false;
  private readonly offIdentityChange: () => void;
  private readonly offMaintenance: () => void;

  constructor(
    private readonly deps: {
      service: GraphqlService;
      identify: IdentifyRequest;
      logger: Logger;
      options: GraphqlOptions;
      trustProxy: boolean;
      events: Pick<EventBus, 'subscribe'>;
      /** The maintenance plugin's gate (container key `maintenance`), when that plugin is enabled. */
      maintenance?: () => MaintenanceGate | undefined;
    },
  ) {
    const { options } = deps;
    this.modern = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
    this.legacyWss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxMessageBytes,
      handleProtocols: (protocols) => (protocols.has(LEGACY_PROTOCOL) ? LEGACY_PROTOCOL : false),
    });
    this.disposeModern = this.serveModern();
    this.timers.push(setInterval(() => this.heartbeat(), options.keepAliveSeconds * 1000));
    if (options.recheckSeconds > 0) this.timers.push(setInterval(() => void this.recheck(), options.recheckSeconds * 1000));
    this.timers.push(setInterval(() => this.watchServers(), 200));
    for (const t of this.timers) t.unref();
    this.offIdentityChange = onIdentityChange(deps.events, (concerns) => {
      const concerned = [...this.connections.values()].filter((c) =>
        concerns(c.identity, bearerHash(c.authorization ?? c.request.headers.authorization)),
      );
      if (concerned.length) void this.recheckSliced(concerned);
    });
    // Maintenance switched on (on any instance): after the maintenance plugin applied the event (its
    // handler may run after this one), the connections it now refuses are closed.
    this.offMaintenance = deps.events.subscribe(SETTING_CHANGED, (event) => {
      if (event.payload?.key === 'MAINTENANCE_MODE') setImmediate(() => this.closeRefused());
    });
  }

  /** Closes the connections maintenance mode refuses now; returns how many. */
  closeRefused(): number {
    const gate = this.deps.maintenance?.();
    if (!gate) return 0;
    let closed = 0;
    for (const c of this.connections.values()) {
      if (!gate.refuses(c.identity)) continue;
      c.socket.close(CLOSE_MAINTENANCE, 'The site is down for maintenance; try again later');
      closed++;
    }
    if (closed) this.deps.logger.info({ code: 'MAINTENANCE_MODE', closed }, 'graphql websocket: connections closed for maintenance mode');
    return closed;
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  /** The kernel hands over upgrade requests for /api/graphql here. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closing) return refuse(socket, 503, 'Shutting down');
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim());
    const legacyProtocol = !offered.includes(MODERN_PROTOCOL) && offered.includes(LEGACY_PROTOCOL);
    if (!legacyProtocol && !offered.includes(MODERN_PROTOCOL)) {
      return refuse(socket, 400, `Use the WebSocket subprotocol ${MODERN_PROTOCOL} (or the legacy ${LEGACY_PROTOCOL})`);
    }
    const request = withoutForeignCookies(req, this.deps.trustProxy);
    this.deps.identify(request).then(
      (identity) => {
        if (socket.destroyed || this.closing) return refuse(socket, 503, 'Shutting down');
        const closed = maintenanceRefusal(this.deps.maintenance?.(), identity);
        if (closed) return refuse(socket, closed.status, closed.message, closed.headers);
        if (legacyProtocol) this.legacyServer ??= this.serveLegacy();
        const server = legacyProtocol ? this.legacyWss : this.modern;
        server.handleUpgrade(req, socket, head, (ws) => {
          // net.Server sets socket.server on the sockets it accepts.
          const httpServer = (req.socket as { server?: HttpServerLike }).server ?? null;
          if (httpServer) this.servers.add(httpServer);
          const connection: Connection = {
            socket: ws,
            request,
            identity,
            legacy: legacyProtocol,
            alive: true,
            server: httpServer,
            raw: socket,
            streams: { open: 0, max: this.deps.options.maxSubscriptionsPerConnection },
          };
          this.connections.set(ws, connection);
          ws.on('pong', () => {
            connection.alive = true;
          });
          ws.once('close', () => this.connections.delete(ws));
          server.emit('connection', ws, req);
        });
      },
      (err: unknown) => {
        if (err instanceof AppError && err.expose) return refuse(socket, err.status, err.message);
        this.deps.logger.error({ err }, 'graphql websocket: identity resolution failed');
        refuse(socket, 503, 'Try again shortly');
      },
    );
  }

  private connection(socket: WebSocket): Connection {
    const found = this.connections.get(socket);
    if (!found) throw new Error('graphql websocket: unknown connection');
    return found;
  }

  /** Connection parameters with a token: the token's identity replaces the cookie's; a bad one throws. */
  private async connect(connection: Connection, params: unknown): Promise<void> {
    const authorization = authorizationFrom(params);
    if (!authorization) return;
    const identity = await this.deps.identify(connection.request, { authorization });
    const closed = maintenanceRefusal(this.deps.maintenance?.(), identity);
    if (closed) throw closed;
    connection.identity = identity;
    connection.authorization = authorization;
  }

  private serveModern(): () => Promise<void> {
    const { service, logger, options } = this.deps;
    const server = useServer(
      {
        isProd: true,
        connectionInitWaitTimeout: 10_000,
        onConnect: async (ctx) => {
          const connection = this.connection(ctx.extra.socket);
          try {
            await this.connect(connection, ctx.connectionParams);
            return true;
          } catch (err) {
            if (!(err instanceof AppError) || !err.expose) logger.error({ err }, 'graphql websocket: connection init failed');
            ctx.extra.socket.close(CLOSE_FORBIDDEN, closeReason(err instanceof AppError && err.expose ? err.message : 'Forbidden'));
            return false;
          }
        },
        onSubscribe: (ctx, id, payload) => {
          const connection = this.connection(ctx.extra.socket);
          const prep = service.prepare(payload, connection.identity, 'WS');
          if (!prep.ok) return prep.errors;
          const p = prep.prepared;
          const contextValue = contextFor(() => connection.identity, p.operation.operation, connection.streams);
          if (p.operation.operation === 'subscription')
            this.sinks.set(contextValue, nextMessageSink(ctx.extra.socket, connection.raw, id, options.maxQueuedEvents));
          return { schema: p.schema, document: p.document, operationName: p.operationName, variableValues: p.variables, contextValue };
        },
        // Shared execution (subscription-fanout.ts): results of shared subscriptions go out through the sink, not onNext.
        subscribe: (args: ExecutionArgs) => service.subscribe(args, this.sinks.get(args.contextValue as object) ?? null),
        onNext: (_ctx, _id, _payload, _args, result) => {
          const errors = formatErrors(result.errors, logger);
          return { ...result, errors };
        },
        onError: (_ctx, _id, _payload, errors) => formatErrors(errors, logger) ?? [],
      },
      this.modern,
      options.keepAliveSeconds * 1000,
    );
    return () => server.dispose() as Promise<void>;
  }

  private serveLegacy(): legacy.SubscriptionServer {
    const { service, logger } = this.deps;
    // A shared subscription's results come formatted already (subscription-fanout.ts).
    const format = (value: ExecutionResult) =>
      value.errors?.some((e) => e instanceof GraphQLError) ? { ...value, errors: formatErrors(value.errors, logger) } : value;
    return legacyModule().SubscriptionServer.create(
      {
        execute: execute as legacy.ExecuteFunction,
        subscribe: ((args: ExecutionArgs) => service.subscribe(args)) as unknown as legacy.SubscribeFunction,
        // prepare() below has run the validation (and the limits) already.
        validationRules: [],
        onConnect: async (params: unknown, socket: WebSocket) => {
          try {
            await this.connect(this.connection(socket), params);
          } catch (err) {
            if (!(err instanceof AppError) || !err.expose) logger.error({ err }, 'graphql websocket: connection init failed');
            throw new Error(err instanceof AppError && err.expose ? err.message : 'Forbidden');
          }
          return true;
        },
        onOperation: async (message: { payload?: Record<string, unknown> }, params: Record<string, unknown>, socket: WebSocket) => {
          const connection = this.connection(socket);
          const payload = message.payload ?? {};
          const prep = service.prepare(payload, connection.identity, 'WS');
          // A rejection carrying `errors` is sent as the operation's data message ({errors}) by subscriptions-transport-ws.
          if (!prep.ok) throw { errors: prep.errors.map((e: GraphQLError) => e.toJSON()) };
          const p = prep.prepared;
          return {
            ...params,
            schema: p.schema,
            query: p.document,
            variables: p.variables,
            operationName: p.operationName,
            context: contextFor(() => connection.identity, p.operation.operation, connection.streams),
            formatResponse: format,
            formatError: (err: unknown) => ({ message: err instanceof AppError && err.expose ? err.message : 'Internal server error' }),
          };
        },
      },
      this.legacyWss,
    );
  }

  /** Legacy connections: a ping (and the protocol's keep-alive message); no pong since the last one ends it. */
  private heartbeat(): void {
    for (const c of this.connections.values()) {
      if (!c.legacy) continue; // graphql-ws pings its own connections
      if (!c.alive) {
        c.socket.terminate();
        continue;
      }
      c.alive = false;
      c.socket.ping();
      if (c.socket.readyState === c.socket.OPEN) c.socket.send(JSON.stringify({ type: 'ka' }));
    }
  }

  /**
   * Resolves each connection's identity again: a changed or ended one closes the connection; permissions are
   * refreshed. In slices of RECHECK_SLICE connections with the event loop free between them, so that with
   * thousands of connections the round does not hold up deliveries; a round still running skips the next.
   */
  private async recheck(): Promise<void> {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      await this.recheckSliced([...this.connections.values()]);
    } finally {
      this.rechecking = false;
    }
  }

  /** Re-checks these connections, RECHECK_SLICE at once, the event loop free between slices (also after a revocation event). */
  private async recheckSliced(connections: Connection[]): Promise<void> {
    for (let i = 0; i < connections.length; i += RECHECK_SLICE) {
      // The maintenance gate is looked up once a slice (a container resolution), not once a connection.
      const gate = this.deps.maintenance?.();
      await Promise.all(connections.slice(i, i + RECHECK_SLICE).map((c) => this.recheckOne(c, gate)));
      if (i + RECHECK_SLICE < connections.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private async recheckOne(c: Connection, gate: MaintenanceGate | undefined): Promise<void> {
    if (!this.connections.has(c.socket)) return;
    let now: Identity;
    try {
      now = await this.deps.identify(c.request, c.authorization ? { authorization: c.authorization } : {});
    } catch (err) {
      if (err instanceof AppError && err.expose) c.socket.close(CLOSE_IDENTITY_ENDED, 'Your session or token has ended; connect again');
      else this.deps.logger.warn({ err }, 'graphql websocket: identity re-check failed; connection kept');
      return;
    }
    const before = c.identity;
    if (now.kind !== before.kind || now.userId !== before.userId || now.tenantId !== before.tenantId) {
      c.socket.close(CLOSE_IDENTITY_ENDED, 'Your session or token has ended; connect again');
      return;
    }
    c.identity = now;
    if (gate?.refuses(now)) c.socket.close(CLOSE_MAINTENANCE, 'The site is down for maintenance; try again later');
  }

  /**
   * Upgraded sockets keep an HTTP server's close() waiting until they end, and the kernel closes its
   * server before its plugins: once a server stops listening, its connections are closed here.
   */
  private watchServers(): void {
    for (const server of this.servers) {
      if (server.listening) continue;
      this.servers.delete(server);
      void this.closeConnections((c) => c.server === server);
    }
  }

  /** Closes the connections (1001), forcing those that do not finish the close handshake within a second. */
  private async closeConnections(which: (c: Connection) => boolean): Promise<void> {
    const chosen = [...this.connections.values()].filter(which);
    for (const c of chosen) c.socket.close(1001, 'Server shutting down');
    const deadline = Date.now() + 1000;
    while (chosen.some((c) => this.connections.has(c.socket)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const c of chosen) if (this.connections.has(c.socket)) c.socket.terminate();
  }

  async close(): Promise<void> {
    this.closing = true;
    this.offIdentityChange();
    this.offMaintenance();
    for (const t of this.timers) clearInterval(t);
    await this.closeConnections(() => true);
    this.legacyServer?.close();
    await this.disposeModern();
  }
}

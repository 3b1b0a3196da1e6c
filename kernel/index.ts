import { setBulkHeapGrowth } from './heap-growth.js';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { asFunction, asValue } from 'awilix';
import type { RedisClientType } from 'redis';
import type { Sequelize } from 'sequelize';
import { AuditLog } from './audit.js';
import { CacheService, limitsFromConfig } from './cache/cache-service.js';
import { loadConfig, type CmsConfig, type LoadConfigOptions } from './config.js';
import { KernelContainer } from './container.js';
import { createSequelize, describeDatabase, secureSqliteFile } from './db/database.js';
import { KERNEL_MIGRATIONS } from './db/kernel-migrations.js';
import { DbLock } from './db/lock.js';
import { MigrationRunner, type MigrationDefinition } from './db/migrations.js';
import { ModelRegistry } from './db/models.js';
import { assertUniqueIds, discoverConfigured, discoverFolder } from './discovery.js';
import { BootError, ServiceUnavailableError } from './errors.js';
import { EventBus } from './events.js';
import { buildApp, type IdentifyRequest } from './http/app.js';
import { capConnectionsPerIp } from './http/connection-cap.js';
import { normalisePath } from './http/rate-limit.js';
import { HttpMetrics } from './http/http-metrics.js';
import { IdempotencyStore } from './http/idempotency.js';
import { NamespaceMap } from './http/namespaces.js';
import { RouteTable } from './http/route-table.js';
import { Router } from './http/router.js';
import { JobQueue } from './jobs.js';
import { PluginLoader, type PluginRecord } from './loader.js';
import { createLogger, type Logger } from './logger.js';
import type { Phase } from './manifest.js';
import { KERNEL_PERMISSIONS } from './permissions.js';
import { orderPlugins } from './plugin-order.js';
import { closeRedis, createRedisClient } from './redis.js';
import { WorkerPool } from './pool.js';
import { createRegistries, type Registries } from './registries/index.js';
import { DIST_ROOT, KERNEL_VERSION } from './version.js';

export { KERNEL_VERSION } from './version.js';

/** What plugins may read about the running kernel (container key `kernelState`). */
export interface KernelState {
  version: string;
  instanceId: string;
  startedAt: string;
  phase(): Phase;
  phaseHistory(): Array<{ phase: Phase; at: string }>;
  plugins(): PluginRecord[];
  database(): { type: string; target: string };
  /** Aborted when the instance starts to stop: long work in a request checks it between steps and hands over. */
  stopping: AbortSignal;
  /**
   * True from the moment shutdown starts: during the drain (http.shutdownDrainMs) requests are still
   * served, but the readiness probe answers 503 so a load balancer sends no new traffic here.
   */
  draining(): boolean;
}

export interface KernelOptions {
  /** A ready config; otherwise it is loaded from cms.config.json and the environment. */
  config?: CmsConfig;
  configOptions?: LoadConfigOptions;
  /** The environment plugins' manifest `env` mappings read (default: configOptions.env, else process.env), read once here. */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Folder of built-in plugins (default: dist/plugins). */
  builtinPluginsDir?: string;
}

/**
 * The kernel: reads config, discovers and orders plugins, builds one container, opens the database,
 * the cache and the worker pool, serves HTTP and walks the boot phases
 * IDLE -> SETUP -> CORE -> READY -> FULL -> WARMED. close() undoes it all in reverse order.
 */
export class Kernel {
  readonly config: CmsConfig;
  readonly logger: Logger;
  readonly container = new KernelContainer();
  readonly registries: Registries = createRegistries();
  readonly routes = new RouteTable();
  readonly namespaces = new NamespaceMap();
  readonly migrations: MigrationDefinition[] = [...KERNEL_MIGRATIONS];
  readonly loader: PluginLoader;
  readonly sequelize: Sequelize;
  readonly models: ModelRegistry;
  readonly lock: DbLock;
  readonly events: EventBus;
  readonly jobs: JobQueue;
  readonly audit: AuditLog;
  pool: WorkerPool | null = null;
  cache: CacheService | null = null;
  redis: RedisClientType | null = null;
  server: Server | null = null;
  private identifyRequest: IdentifyRequest | null = null;
  readonly httpMetrics = new HttpMetrics();
  private phaseNow: Phase = 'IDLE';
  private readonly history: Array<{ phase: Phase; at: string }> = [{ phase: 'IDLE', at: new Date().toISOString() }];
  private serving = false;
  private drainingNow = false;
  private closing: Promise<void> | null = null;
  private readonly stopping = new AbortController();
  private booting: Promise<void> | null = null;
  private readonly builtinDir: string;

  constructor(options: KernelOptions = {}) {
    this.config = options.config ?? loadConfig(options.configOptions);
    setBulkHeapGrowth(this.config.runtime.bulkHeapGrowthPercent);
    this.logger = options.logger ?? createLogger(this.config.logLevel);
    this.builtinDir = options.builtinPluginsDir ?? join(DIST_ROOT, 'plugins');
    this.sequelize = createSequelize(this.config, this.logger);
    this.models = new ModelRegistry(this.sequelize);
    this.lock = new DbLock(this.sequelize);
    this.events = new EventBus(this.logger);
    this.audit = new AuditLog(this.sequelize, this.lock);
    this.jobs = new JobQueue(this.sequelize, this.registries.jobHandlers, this.logger, this.config.jobs);
    this.loader = new PluginLoader({
      container: this.container,
      routes: this.routes,
      registries: this.registries,
      namespaces: this.namespaces,
      migrations: this.migrations,
      models: this.models,
      config: this.config,
      logger: this.logger,
      env: options.env ?? options.configOptions?.env ?? process.env,
    });
  }

  get phase(): Phase {
    return this.phaseNow;
  }

  private enter(phase: Phase): void {
    this.phaseNow = phase;
    this.history.push({ phase, at: new Date().toISOString() });
    this.logger.info({ phase }, 'boot phase');
  }

  private registerKernelServices(): void {
    const state: KernelState = {
      version: KERNEL_VERSION,
      instanceId: this.events.instanceId,
      startedAt: this.history[0]!.at,
      phase: () => this.phaseNow,
      phaseHistory: () => [...this.history],
      plugins: () => this.loader.describe(),
      database: () => describeDatabase(this.config),
      stopping: this.stopping.signal,
      draining: () => this.drainingNow,
    };
    const lazy = <T>(get: () => T | null, name: string) =>
      asFunction(() => {
        const value = get();
        if (value === null) throw new ServiceUnavailableError(`Kernel service '${name}' is not open yet (it opens in the SETUP phase)`);
        return value;
      }).singleton();
    const values: Record<string, unknown> = {
      config: this.config,
      logger: this.logger,
      sequelize: this.sequelize,
      models: this.models.models,
      lock: this.lock,
      events: this.events,
      jobs: this.jobs,
      audit: this.audit,
      registries: this.registries,
      routes: this.routes,
      namespaces: this.namespaces,
      kernelState: state,
    };
    for (const [key, value] of Object.entries(values)) this.container.register('kernel', key, asValue(value));
    this.container.register(
      'kernel',
      'cache',
      lazy(() => this.cache, 'cache'),
    );
    this.container.register(
      'kernel',
      'pool',
      lazy(() => this.pool, 'pool'),
    );
    // The identity of a raw request (WebSocket upgrades): the same resolvers as over HTTP.
    const identify: IdentifyRequest = (req, overrides) => {
      if (!this.identifyRequest) throw new Error('The kernel is not listening yet');
      return this.identifyRequest(req, overrides);
    };
    this.container.register('kernel', 'identify', asValue(identify));
    this.container.register('kernel', 'httpMetrics', asValue(this.httpMetrics));
    // Migrations built at run time (a collection's table created or altered) go through the same ledger and lock.
    this.container.register('kernel', 'migrator', asValue(new MigrationRunner(this.sequelize, this.lock, this.logger)));
    for (const [name, description] of Object.entries(KERNEL_PERMISSIONS)) this.registries.permissions.add({ name, description });
  }

  /** Discovery, ordering and registration: no I/O beyond reading manifests and entry modules. */
  private async registerPlugins(): Promise<void> {
    const discovered = [...discoverFolder(this.builtinDir), ...discoverConfigured(this.config.plugins.paths, this.config.root)];
    assertUniqueIds(discovered);
    const { ordered, disabled, unknownInConfig } = orderPlugins({
      plugins: discovered,
      disabled: this.config.plugins.disabled,
      enabled: this.config.plugins.enabled,
      kernelVersion: KERNEL_VERSION,
    });
    if (unknownInConfig.length) this.logger.warn({ plugins: unknownInConfig }, 'config names plugins that are not installed');
    this.loader.noteDisabled(disabled);
    await this.loader.register(ordered);
  }

  private async openInfrastructure(): Promise<void> {
    if (this.config.db.type === 'sqlite') {
      // A data folder the kernel creates is owner-only; the SQLite file is 0600 (secureSqliteFile).
      mkdirSync(this.config.dataPath, { recursive: true, mode: 0o700 });
      secureSqliteFile(this.config);
    }
    await this.sequelize.authenticate();
    await new MigrationRunner(this.sequelize, this.lock, this.logger).run(this.migrations);
    const { redis } = this.config;
    this.cache = await CacheService.create({
      redisUrl: redis.url,
      prefix: redis.prefix,
      defaultTtlSeconds: this.config.cache.defaultTtlSeconds,
      limits: limitsFromConfig(this.config.cache),
      logger: this.logger,
    });
    if (redis.url) {
      this.redis = createRedisClient(redis.url);
      this.redis.on('error', (err) => this.logger.error({ err }, 'redis error'));
      await this.redis.connect();
      await this.events.connectRedis(redis.url, redis.prefix);
    }
    this.pool = new WorkerPool({
      maxThreads: this.config.pool.maxThreads,
      idleTimeoutMs: this.config.pool.idleTimeoutMs,
      niceIncrement: this.config.pool.niceIncrement,
    });
  }

  private listen(): Promise<void> {
    // Read when the limiter needs it: Redis connects in the SETUP phase, after the app is built.
    const redisNow = () => this.redis;
    const app = buildApp({
      logger: this.logger,
      container: this.container,
      router: new Router(this.routes),
      namespaces: this.namespaces,
      registries: this.registries,
      bodyLimit: this.config.http.bodyLimit,
      trustProxy: this.config.http.trustProxy,
      proxyHops: this.config.http.proxyHops,
      rateLimit: {
        ...this.config.rateLimit,
        prefix: this.config.redis.prefix,
        logger: this.logger,
        secrets: this.config.secrets,
        get redis() {
          return redisNow();
        },
      },
      isServing: () => this.serving,
      isBooted: (id) => this.loader.isBooted(id),
      metrics: this.httpMetrics,
      idempotency: new IdempotencyStore(this.sequelize),
      publicUrl: this.config.publicUrl,
      hstsMaxAgeSeconds: this.config.http.hstsMaxAgeSeconds,
    });
    this.identifyRequest = app.identify;
    const { headersTimeoutMs, requestTimeoutMs } = this.config.http;
    // Half-sent requests: headers within headersTimeoutMs, the whole request within requestTimeoutMs
    // (Node checks both every connectionsCheckingInterval; its default of 30 s would let them run over).
    this.server = createServer(
      {
        headersTimeout: requestTimeoutMs > 0 ? Math.min(headersTimeoutMs, requestTimeoutMs) : headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        connectionsCheckingInterval: 1000,
      },
      app.callback(),
    );
    this.server.keepAliveTimeout = 5000;
    this.capConnections(this.server);
    this.server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    return new Promise((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.config.port, this.config.host, () => {
        this.server!.off('error', reject);
        resolve();
      });
    });
  }

  /** The per-address connection cap (http.maxConnectionsPerIp; unset: 64, or none behind a trusted proxy). */
  private capConnections(server: Server): void {
    const { maxConnectionsPerIp, trustProxy, connectionCapLoopback } = this.config.http;
    const maxPerIp = maxConnectionsPerIp ?? (trustProxy ? 0 : 64);
    const warned = new Map<string, number>();
    capConnectionsPerIp(server, {
      maxPerIp,
      includeLoopback: connectionCapLoopback,
      onRefused: (address) => {
        // One line per address a minute: a flood does not flood the log too.
        const now = Date.now();
        if (now - (warned.get(address) ?? 0) < 60_000) return;
        if (warned.size >= 1000) warned.clear();
        warned.set(address, now);
        this.logger.warn({ address, maxPerIp }, 'connection refused: too many open connections from this address');
      },
    });
  }

  /**
   * WebSocket upgrades go to the endpoint registered for the path (the websockets registry), once the
   * instance is serving; otherwise the socket is answered 503 or 404 and closed.
   */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    socket.on('error', () => socket.destroy());
    if (!this.serving) return refuse('503 Service Unavailable');
    let path: string;
    try {
      path = normalisePath(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      return refuse('400 Bad Request');
    }
    const endpoint = this.registries.websockets.list().find((e) => normalisePath(e.path) === path);
    if (!endpoint) return refuse('404 Not Found');
    try {
      endpoint.handleUpgrade(req, socket, head);
    } catch (err) {
      this.logger.error({ err, endpoint: endpoint.id }, 'websocket upgrade failed');
      refuse('500 Internal Server Error');
    }
  }

  /** The address the server listens on (port 0 in config picks a free one). */
  get url(): string {
    const address = this.server?.address() as AddressInfo | null;
    if (!address) throw new Error('The kernel is not listening');
    return `http://${this.config.host}:${address.port}`;
  }

  async start(): Promise<this> {
    this.booting = this.boot();
    try {
      await this.booting;
    } catch (err) {
      // A close() already under way waits for this boot to stop; calling it again would wait on itself.
      if (!this.closing) await this.close().catch((closeErr) => this.logger.error({ err: closeErr }, 'close after failed boot failed'));
      throw err;
    } finally {
      this.booting = null;
    }
    return this;
  }

  private async boot(): Promise<void> {
    const stopIfClosing = () => {
      if (this.closing) throw new BootError('Boot stopped: shutdown was requested');
    };
    this.registerKernelServices();
    await this.registerPlugins();
    await this.listen();
    this.logger.info({ url: this.url, version: KERNEL_VERSION }, 'listening (requests answer 503 until READY)');
    stopIfClosing();
    this.enter('SETUP');
    await this.openInfrastructure();
    stopIfClosing();
    await this.loader.bootPhase('setup', stopIfClosing);
    stopIfClosing();
    this.enter('CORE');
    await this.loader.bootPhase('core', stopIfClosing);
    stopIfClosing();
    this.enter('READY');
    this.serving = true;
    this.enter('FULL');
    if (this.config.jobs.enabled) this.jobs.start();
    await this.loader.bootPhase('full', stopIfClosing);
    stopIfClosing();
    this.enter('WARMED');
    await this.loader.bootPhase('warmed', stopIfClosing);
    stopIfClosing();
  }

  /**
   * Graceful shutdown in reverse order: server, (the boot in progress, which stops before its next
   * plugin), jobs, plugins, pool, events, cache, Redis, database. Each step is bounded, so a stuck
   * dependency (a hung job, an unreachable Redis) cannot keep the process alive.
   */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    this.drainingNow = true;
    const drainMs = this.config.http.shutdownDrainMs;
    if (drainMs > 0 && this.serving) {
      // Readiness answers 503 from now on; requests are still served until the load balancer has noticed.
      this.logger.info({ ms: drainMs }, 'draining: not ready, still serving');
      await new Promise((resolve) => setTimeout(resolve, drainMs));
    }
    this.serving = false;
    this.stopping.abort();
    this.logger.info('shutting down');
    const limit = this.config.http.shutdownTimeoutMs + 5000;
    const step = async (name: string, fn: () => Promise<unknown> | unknown) => {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.logger.error({ step: name, ms: limit }, 'shutdown step did not finish in time; moving on');
          resolve();
        }, limit);
      });
      try {
        await Promise.race([Promise.resolve().then(fn), timedOut]);
      } catch (err) {
        this.logger.error({ err, step: name }, 'shutdown step failed');
      } finally {
        clearTimeout(timer);
      }
    };
    await step('server', () => this.closeServer());
    await step('boot', () => this.booting?.catch(() => undefined));
    await step('jobs', () => this.jobs.stop());
    await step('plugins', () => this.loader.closeAll());
    await step('audit', () => this.audit.flush());
    await step('pool', () => this.pool?.close());
    await step('events', () => this.events.close());
    await step('cache', () => this.cache?.close());
    await step('redis', () => closeRedis(this.redis));
    await step('database', () => this.sequelize.close());
    this.enter('IDLE');
    this.logger.flush?.();
  }

  private closeServer(): Promise<void> {
    const server = this.server;
    if (!server?.listening) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => server.closeAllConnections(), this.config.http.shutdownTimeoutMs);
      force.unref();
      // Keep-alive connections that go idle after their in-flight response are closed at once too.
      const idle = setInterval(() => server.closeIdleConnections(), 50);
      idle.unref();
      server.close(() => {
        clearTimeout(force);
        clearInterval(idle);
        resolve();
      });
      server.closeIdleConnections();
    });
  }
}

export function createKernel(options: KernelOptions = {}): Kernel {
  return new Kernel(options);
}

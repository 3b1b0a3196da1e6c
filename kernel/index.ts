import { setBulkHeapGrowth } from './heap-growth.js';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { asFunction, asValue } from 'awilix';
import type { Sequelize } from 'sequelize';
import { AuditLog } from './audit.js';
import { CacheService, limitsFromConfig } from './cache/cache-service.js';
import { loadConfig, type CmsConfig, type LoadConfigOptions } from './config.js';
import { KernelContainer } from './container.js';
import { createSequelize, describeDatabase, readRoutingOf, secureSqliteFile } from './db/database.js';
import { KERNEL_MIGRATIONS } from './db/kernel-migrations.js';
import { DbLock } from './db/lock.js';
import { MigrationRunner, type MigrationDefinition } from './db/migrations.js';
import { startSqliteStatistics } from './db/sqlite-statistics.js';
import { ModelRegistry } from './db/models.js';
import { assertUniqueIds, discoverConfigured, discoverFolder } from './discovery.js';
import { BootError, ServiceUnavailableError } from './errors.js';
import { EventBus } from './events.js';
import { buildApp, type IdentifyRequest } from './http/app.js';
import { closeHttpServer, createHttpServer, listenOn } from './http/server.js';
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
import { closeRedis, createRedisConnection, redisConfigured, type RedisConnection } from './redis.js';
import { WorkerPool } from './pool.js';
import { boundedShutdownStep } from './shutdown-step.js';
import { SettingsService, type SettingsCatalogueView } from './settings/store.js';
import { optional } from './plugin.js';
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
  private stopStatistics: () => void = () => undefined;
  cache: CacheService | null = null;
  redis: RedisConnection | null = null;
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
      readRouting: readRoutingOf(this.sequelize, this.logger),
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
    // System Settings: the store is the kernel's; the setup plugin's catalogue (when enabled) says which keys are
    // public and what seeding writes.
    const cradle = this.container.awilix.cradle as object;
    const catalogue = () => optional(cradle, 'settingsCatalogue' as never) as SettingsCatalogueView | undefined;
    this.container.register('kernel', 'settings', asValue(new SettingsService(this.sequelize, this.events, catalogue)));
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

  /**
   * Without booting: the kernel's services and the plugins registered (their migrations declared), no port, no
   * migration run, no plugin booted. `cms migrate` and `cms doctor` (kernel/cli-*.ts) then open the database with
   * openDatabase() and read the ledger; close() undoes it.
   */
  async prepare(): Promise<this> {
    this.registerKernelServices();
    await this.registerPlugins();
    return this;
  }

  /** The database connected (for SQLite: its folder made, the file owner-only), without migrating it. */
  async openDatabase(): Promise<void> {
    if (this.config.db.type === 'sqlite') {
      // A data folder the kernel creates is owner-only; the SQLite file is 0600 (secureSqliteFile).
      mkdirSync(this.config.dataPath, { recursive: true, mode: 0o700 });
      secureSqliteFile(this.config);
    }
    await this.sequelize.authenticate();
  }

  private async openInfrastructure(): Promise<void> {
    await this.openDatabase();
    await new MigrationRunner(this.sequelize, this.lock, this.logger).run(this.migrations);
    this.stopStatistics = await startSqliteStatistics(this.sequelize, this.logger);
    const { redis } = this.config;
    this.cache = await CacheService.create({
      redis,
      prefix: redis.prefix,
      defaultTtlSeconds: this.config.cache.defaultTtlSeconds,
      limits: limitsFromConfig(this.config.cache),
      logger: this.logger,
    });
    await readRoutingOf(this.sequelize, this.logger).start(this.cache);
    if (redisConfigured(redis)) {
      this.redis = createRedisConnection(redis);
      this.redis.on('error', (err: unknown) => this.logger.error({ err }, 'redis error'));
      await this.redis.connect();
      await this.events.connectRedis(redis, redis.prefix);
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
      corsOrigins: this.config.http.corsOrigins,
      readRouting: readRoutingOf(this.sequelize, this.logger),
    });
    this.identifyRequest = app.identify;
    this.server = createHttpServer(app.callback(), {
      http: this.config.http,
      logger: this.logger,
      registries: this.registries,
      isServing: () => this.serving,
    });
    return listenOn(this.server, this.config.port, this.config.host);
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
    const step = boundedShutdownStep(this.logger, this.config.http.shutdownTimeoutMs + 5000);
    await step('server', () => closeHttpServer(this.server, this.config.http.shutdownTimeoutMs));
    await step('boot', () => this.booting?.catch(() => undefined));
    await step('jobs', () => this.jobs.stop());
    await step('plugins', () => this.loader.closeAll());
    await step('audit', () => this.audit.flush());
    await step('pool', () => this.pool?.close());
    await step('events', () => this.events.close());
    await step('cache', () => this.cache?.close());
    await step('redis', () => closeRedis(this.redis));
    this.stopStatistics();
    await step('replicas', () => readRoutingOf(this.sequelize, this.logger).close());
    await step('database', () => this.sequelize.close());
    this.enter('IDLE');
    this.logger.flush?.();
  }
}

export function createKernel(options: KernelOptions = {}): Kernel {
  return new Kernel(options);
}

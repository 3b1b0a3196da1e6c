/**
 * The kernel's own container keys (registered in Kernel.registerKernelServices), declared in
 * ContainerServices by declaration merging so `scope.<key>` is typed in route handlers. Type-only:
 * nothing here runs code.
 */
import type { Sequelize } from 'sequelize';
import type { ModelMap } from './db/models.js';
import type { AuditLog } from './audit.js';
import type { CacheService } from './cache/cache-service.js';
import type { CmsConfig } from './config.js';
import type { DbLock } from './db/lock.js';
import type { MigrationRunner } from './db/migrations.js';
import type { ReadRouting } from './db/read-routing.js';
import type { EventBus } from './events.js';
import type { IdentifyRequest } from './http/app.js';
import type { Identity } from './http/identity.js';
import type { HttpMetrics } from './http/http-metrics.js';
import type { NamespaceMap } from './http/namespaces.js';
import type { KernelState } from './index.js';
import type { JobQueue } from './jobs.js';
import type { Logger } from './logger.js';
import type { WorkerPool } from './pool.js';
import type { Registries } from './registries/index.js';
import type { SettingsService } from './settings/store.js';

declare module './http/route-table.js' {
  interface ContainerServices {
    config: CmsConfig;
    logger: Logger;
    sequelize: Sequelize;
    /** This kernel's bound model classes by class name (see kernel/db/models.ts, modelOf). */
    models: ModelMap;
    lock: DbLock;
    events: EventBus;
    jobs: JobQueue;
    audit: AuditLog;
    registries: Registries;
    routes: RouteTable;
    namespaces: NamespaceMap;
    kernelState: KernelState;
    /** DB_READ_URLS: where reads go (replicas or the primary), replica health, write positions for caches. */
    readRouting: ReadRouting;
    /** Resolving it throws before the SETUP phase opens the cache. */
    cache: CacheService;
    /** Resolving it throws before the SETUP phase opens the pool. */
    pool: WorkerPool;
    identify: IdentifyRequest;
    httpMetrics: HttpMetrics;
    migrator: MigrationRunner;
    /** System Settings (kernel/settings/store.ts): per-tenant values; the setup plugin seeds them and serves the Settings API. */
    settings: SettingsService;
    /** Request-scoped (registered in each request's scope, see requestScoped in kernel/plugin.ts): who is calling. */
    currentUser: Identity;
    /** Request-scoped: the caller's tenant. */
    tenantId: string;
    /** Request-scoped: the id logged with every line of this request and sent back as X-Request-Id. */
    requestId: string;
  }
}

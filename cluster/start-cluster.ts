import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mariadb from 'mariadb';
import { closeRedis, createRedisClient } from '../kernel/redis.js';
import { startInstance, type InstanceProcess } from './instance-process.js';
import { startMariaDbPair, type MariaDbPair } from './mariadb-pair.js';
import { startNginxProxy, type NginxProxy } from './nginx-proxy.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';
import { S3RVER_ACCOUNT, startS3Server, type S3Server } from './s3-server.js';
import { startTcpForwarder, type TcpForwarder } from './tcp-forwarder.js';

export interface ClusterOptions {
  /** Number of instances (separate processes). */
  instances?: number;
  /** MariaDB server URL (`mariadb://user:pass@host:port/any`): a fresh database is created on it and dropped by stop(). */
  mariadbUrl: string;
  /** Redis URL: every run gets its own key and channel prefix. */
  redisUrl: string;
  /** Redis through Sentinel instead of redisUrl (e.g. a startRedisSentinelSet()): REDIS_SENTINELS, REDIS_SENTINEL_MASTER, REDIS_PASSWORD. */
  redisSentinel?: { sentinels: string; master: string; password?: string };
  /** The proxy's port (0: a free one). */
  port?: number;
  /** First admin, created headlessly by whichever instance gets there first. */
  admin?: { email: string; password: string };
  /** cms.config.json content for every instance (written to the log folder, named by CMS_CONFIG), e.g. plugin options. */
  config?: Record<string, unknown>;
  /** Extra environment for every instance (e.g. CMS_RATE_LIMIT_ENABLED=false, plugin options). */
  env?: Record<string, string>;
  /** LOG_LEVEL of the instances (their output goes to files under logDir). Default info. */
  logLevel?: string;
  /** http.shutdownDrainMs of each instance: kept serving after readiness turned 503 (default 1000). */
  drainMs?: number;
  /**
   * Point the instances at MariaDB and Redis through TCP forwarders (cluster.faults) that a test can
   * cut and restore, to play an outage of either without stopping the shared servers.
   */
  forwarders?: boolean;
  /**
   * Read replicas: a MariaDB primary and a replica of their own (cluster/mariadb-pair.ts, two mariadbd processes)
   * instead of the server of `mariadbUrl`, the instances reading the replica (DB_READ_URLS).
   */
  replica?: boolean;
  /** Keep the instances' log files after stop() (the CLI does, and prints where). */
  keepLogs?: boolean;
  /** Keep the database after stop() (the CLI's --keep). */
  keepDatabase?: boolean;
  /**
   * The load balancer in front: 'test' (default) the harness's own round-robin proxy (cluster/round-robin-proxy.ts),
   * 'nginx' Debian's nginx with the configuration the deployment guide shows (cluster/nginx-proxy.ts).
   */
  proxy?: 'test' | 'nginx';
  /** Called with one line per step (the CLI prints them). */
  onProgress?: (line: string) => void;
}

export interface Cluster {
  /** The proxy's URL: what clients use. */
  url: string;
  instances: InstanceProcess[];
  proxy: RoundRobinProxy | NginxProxy;
  database: string;
  redisPrefix: string;
  s3: S3Server;
  logDir: string;
  admin: { email: string; password: string };
  /** Forwarders in front of MariaDB and Redis (with `forwarders: true`). */
  faults: { db?: TcpForwarder; redis?: TcpForwarder };
  /** The primary and its replica (with `replica: true`): pause replication, kill or restart the replica. */
  replica?: MariaDbPair;
  /** Stops the instances (SIGTERM), the proxy, the S3 server and the forwarders; drops the database. */
  stop(): Promise<void>;
}

function writeConfig(dir: string, config: Record<string, unknown>): string {
  const file = join(dir, 'cms.config.json');
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** Removes the run's keys (everything under its prefix: cache, rate-limit and share-attempt counters). */
async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createRedisClient(url);
  client.on('error', () => undefined);
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
      const batch = ([] as string[]).concat(keys);
      if (batch.length) await client.unlink(batch);
    }
  } finally {
    await closeRedis(client);
  }
}

const name = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

async function adminConnection(url: URL) {
  return mariadb.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
  });
}

/** The proxy the options ask for, with its cleanup registered. */
async function startProxy(options: ClusterOptions, cleanups: Array<() => unknown>): Promise<RoundRobinProxy | NginxProxy> {
  if (options.proxy !== 'nginx') {
    const proxy = await startRoundRobinProxy({ upstreams: [], port: options.port ?? 0 });
    cleanups.push(() => proxy.close());
    return proxy;
  }
  const dir = mkdtempSync(join(tmpdir(), 'cms-cluster-nginx-'));
  if (!options.keepLogs) cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const proxy = await startNginxProxy({ upstreams: [], port: options.port ?? 0, dir });
  cleanups.push(() => proxy.close());
  return proxy;
}

/**
 * N kernel instances as separate processes on one fresh MariaDB database, one Redis (own prefix),
 * media in an S3 protocol server (s3rver), and a round-robin reverse proxy in front. Everything binds
 * 127.0.0.1. Instances start together (so migrations and setup race as in a real rollout).
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const count = options.instances ?? 3;
  if (!Number.isInteger(count) || count < 1 || count > 16) throw new Error('instances must be 1..16');
  const progress = options.onProgress ?? (() => undefined);
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const pair = options.replica ? await startMariaDbPair() : undefined;
    if (pair) cleanups.push(() => pair.stop());
    const mariadbUrl = pair ? pair.primary.url('cms') : options.mariadbUrl;
    const dbServer = new URL(mariadbUrl);
    const database = name('cms_cluster');
    const conn = await adminConnection(dbServer);
    try {
      await conn.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    } finally {
      await conn.end();
    }
    if (!options.keepDatabase)
      cleanups.push(async () => {
        const c = await adminConnection(dbServer);
        try {
          await c.query(`DROP DATABASE IF EXISTS \`${database}\``);
        } finally {
          await c.end();
        }
      });
    progress(`database ${database} created on ${dbServer.host}`);
    const faults: Cluster['faults'] = {};
    const dbUrl = new URL(mariadbUrl);
    dbUrl.pathname = `/${database}`;
    const redisUrl = new URL(options.redisUrl);
    if (options.forwarders) {
      faults.db = await startTcpForwarder({ host: dbServer.hostname, port: Number(dbServer.port || 3306) });
      faults.redis = await startTcpForwarder({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379) });
      cleanups.push(
        () => faults.db?.close(),
        () => faults.redis?.close(),
      );
      dbUrl.hostname = redisUrl.hostname = '127.0.0.1';
      dbUrl.port = String(faults.db.port);
      redisUrl.port = String(faults.redis.port);
    }
    const s3 = await startS3Server();
    cleanups.push(() => s3.close());
    progress(`S3 protocol server ${s3.endpoint} (bucket ${s3.bucket})`);
    const proxy = await startProxy(options, cleanups);
    const logDir = mkdtempSync(join(tmpdir(), 'cms-cluster-logs-'));
    if (!options.keepLogs) cleanups.push(() => rmSync(logDir, { recursive: true, force: true }));
    const redisPrefix = name('cmscluster');
    if (!options.redisSentinel) cleanups.push(() => dropRedisKeys(options.redisUrl, redisPrefix));
    const sentinel = options.redisSentinel;
    const admin = options.admin ?? { email: 'admin@cluster.test', password: `cluster-${randomBytes(6).toString('hex')}` };
    // What every instance must share: database, Redis (and prefix), media store, secrets, public URL.
    const shared: Record<string, string> = {
      NODE_ENV: 'production',
      LOG_LEVEL: options.logLevel ?? 'info',
      DB_URL: dbUrl.toString(),
      ...(sentinel
        ? {
            REDIS_SENTINELS: sentinel.sentinels,
            REDIS_SENTINEL_MASTER: sentinel.master,
            ...(sentinel.password ? { REDIS_PASSWORD: sentinel.password } : {}),
          }
        : { REDIS_URL: redisUrl.toString() }),
      CMS_REDIS_PREFIX: redisPrefix,
      CMS_PUBLIC_URL: proxy.url,
      CMS_TRUST_PROXY: 'true',
      CMS_PROXY_HOPS: '1',
      CMS_SHUTDOWN_DRAIN_MS: String(options.drainMs ?? 1000),
      CMS_SHUTDOWN_TIMEOUT_MS: '5000',
      JWT_SECRET_KEY: randomBytes(32).toString('hex'),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      RATE_LIMIT_SECRET: randomBytes(32).toString('hex'),
      MEDIA_STORAGE_TYPE: 'object_store',
      MEDIA_CLOUD_BUCKET: s3.bucket,
      MEDIA_CLOUD_ENDPOINT: s3.endpoint,
      MEDIA_CLOUD_REGION: 'us-east-1',
      MEDIA_CLOUD_FORCE_PATH_STYLE: 'true',
      MEDIA_ACCESS_KEY_ID: S3RVER_ACCOUNT.accessKeyId,
      MEDIA_SECRET_ACCESS_KEY: S3RVER_ACCOUNT.secretAccessKey,
      CMS_SETUP_ADMIN_EMAIL: admin.email,
      CMS_SETUP_ADMIN_PASSWORD: admin.password,
      ...(options.config ? { CMS_CONFIG: writeConfig(logDir, options.config) } : {}),
      ...(pair ? { DB_READ_URLS: `mariadb://root@127.0.0.1:${pair.replica.port}` } : {}),
      ...options.env,
    };
    const instances: InstanceProcess[] = [];
    const dataDirs: string[] = [];
    const dataDir = (n: number) => {
      const dir = mkdtempSync(join(tmpdir(), `cms-cluster-${n}-`));
      dataDirs.push(dir);
      return dir;
    };
    cleanups.push(() => dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    cleanups.push(() => Promise.all(instances.map((i) => i.kill('SIGTERM'))));
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, i) =>
        startInstance({
          index: i + 1,
          logFile: join(logDir, `instance-${i + 1}.log`),
          env: { ...shared, CMS_DATA_DIR: dataDir(i + 1) },
        }).then((instance) => {
          instances.push(instance);
          return instance;
        }),
      ),
    );
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    instances.sort((a, b) => a.index - b.index);
    for (const i of instances) progress(`instance ${i.index}: ${i.url} (pid ${i.pid}, log ${i.logFile})`);
    proxy.setUpstreams(instances.map((i) => i.url));
    await proxy.checkNow();
    progress(`${'kind' in proxy ? `nginx (${proxy.dir})` : 'proxy'} ${proxy.url} -> ${instances.length} instances, round robin`);
    const stop = async () => {
      await cleanup();
    };
    return { url: proxy.url, instances, proxy, database, redisPrefix, s3, logDir, admin, faults, replica: pair, stop };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

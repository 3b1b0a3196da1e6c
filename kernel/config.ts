import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { BootError } from './errors.js';
import { redactString } from './logger.js';

/**
 * Configuration: defaults <- cms.config.json (or CMS_CONFIG) <- environment variables, validated
 * with one zod schema at start. A bad value stops the boot with a message naming the key (the
 * environment variable or the JSON path) and what is allowed.
 */
const port = z.number().int().min(1).max(65535);

export const configSchema = z.object({
  env: z.enum(['production', 'development', 'test']).default('production'),
  host: z.string().min(1).default('127.0.0.1'),
  port: z.number().int().min(0).max(65535).default(3000),
  /** CMS_PUBLIC_URL: the address browsers use (links in mails, OIDC redirects, the passkey relying party); default http://<host>:<port>. */
  publicUrl: z.url({ protocol: /^https?$/ }).optional(),
  dataDir: z.string().min(1).default('./data'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** MULTI_TENANT: users, roles, sessions, tokens and keys belong to tenants resolved by hostname. */
  multiTenant: z.boolean().default(false),
  db: z
    .object({
      type: z.enum(['sqlite', 'mariadb']).default('sqlite'),
      url: z.string().optional(),
      storage: z.string().min(1).default('cms.sqlite'),
      host: z.string().default('127.0.0.1'),
      port: port.default(3306),
      name: z.string().default('cms'),
      user: z.string().default('root'),
      password: z.string().default(''),
      poolMax: z.number().int().min(1).max(200).default(10),
      connectTimeoutMs: z.number().int().min(100).max(60000).default(15000),
      /** SQLite: how long a write may wait for the one writer before it fails with 503 DATABASE_BUSY. */
      writeWaitMs: z.number().int().min(100).max(120000).default(10000),
      /** SQLite: how long the driver waits for another process's lock (busy timeout). */
      busyTimeoutMs: z.number().int().min(0).max(120000).default(5000),
    })
    .prefault({}),
  redis: z
    .object({
      url: z
        .string()
        .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
        .optional(),
      prefix: z
        .string()
        .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only')
        .default('cms'),
    })
    .prefault({}),
  cache: z
    .object({
      defaultTtlSeconds: z.number().int().min(1).default(300),
      /** Memory backend (no Redis): the store's bound in MiB (values counted as UTF-16, an upper bound) and in entries. */
      memoryMaxMb: z.number().int().min(1).max(65536).default(64),
      memoryMaxEntries: z.number().int().min(100).max(10_000_000).default(100_000),
      /** Share of a full store (and of each in-process layer) one tenant may hold before it evicts its own entries first. */
      tenantSharePercent: z.number().int().min(1).max(100).default(25),
      /** In-process layers in front of the store (serialised list bodies), per layer, with either backend. */
      localMaxMb: z.number().int().min(1).max(65536).default(16),
      /** Redis backend: most MiB of list bodies one instance writes to Redis for one tenant per list lifetime (5 min); 0: no cap. */
      redisTenantListMb: z.number().int().min(0).max(65536).default(32),
    })
    .prefault({}),
  http: z
    .object({
      bodyLimit: z
        .string()
        .regex(/^\d+(b|kb|mb)$/i, 'a size such as 512kb or 1mb')
        .default('1mb'),
      trustProxy: z.boolean().default(false),
      /** With trustProxy: how many proxies append to X-Forwarded-For; only that many right-most entries are believed. */
      proxyHops: z.number().int().min(1).max(10).default(1),
      shutdownTimeoutMs: z.number().int().min(0).max(120000).default(10000),
      /**
       * On shutdown, how long the instance keeps serving (in-flight and new requests) after its readiness
       * probe turned 503, so a load balancer stops sending traffic before the listener closes.
       */
      shutdownDrainMs: z.number().int().min(0).max(120000).default(0),
      /** Strict-Transport-Security max-age (seconds) on answers over HTTPS (or with an https publicUrl); 0 sends none. */
      hstsMaxAgeSeconds: z.number().int().min(0).max(63072000).default(31536000),
      /**
       * Most open connections from one client address (loopback not counted unless connectionCapLoopback);
       * 0: no cap. Unset: 64, or no cap with trustProxy (every connection then comes from the proxy).
       */
      maxConnectionsPerIp: z.number().int().min(0).max(100000).optional(),
      /** Count loopback clients (127.0.0.0/8, ::1) against maxConnectionsPerIp too. */
      connectionCapLoopback: z.boolean().default(false),
      /** How long a client may take to send the request's headers; the connection is then closed (408). */
      headersTimeoutMs: z.number().int().min(1000).max(600000).default(15000),
      /** How long a client may take to send the whole request, body included (uploads: raise it for slow links); 0: no limit. */
      requestTimeoutMs: z.number().int().min(0).max(3600000).default(300000),
    })
    .prefault({}),
  rateLimit: z
    .object({
      enabled: z.boolean().default(true),
      points: z.number().int().min(1).default(600),
      durationSeconds: z.number().int().min(1).default(60),
    })
    .prefault({}),
  pool: z
    .object({
      maxThreads: z.number().int().min(1).max(64).default(Math.max(1, availableParallelism())),
      idleTimeoutMs: z.number().int().min(0).default(30000),
      /**
       * Added to the nice value of each worker thread (Linux: per thread), so the event loop wins the CPU
       * from password hashing, parsing and checksums when both want it; 0 keeps the process's priority.
       */
      niceIncrement: z.number().int().min(0).max(19).default(10),
    })
    .prefault({}),
  runtime: z
    .object({
      /**
       * V8's old-space growth after a full collection, in percent of what survived it, while a data
       * operation plans or applies (kernel/heap-growth.ts); 0 leaves V8's adaptive factor always. See
       * README, "Memory during data operations".
       */
      bulkHeapGrowthPercent: z.number().int().min(0).max(300).default(20),
    })
    .prefault({}),
  outbound: z
    .object({
      /**
       * CMS_OUTBOUND_ALLOW_PRIVATE: requests the server makes on a user's behalf (importer downloads,
       * content-sync channels, webhooks) may reach loopback, private, link-local and unique-local
       * addresses (kernel/outbound.ts). Off by default (SSRF); tests and intranets turn it on.
       */
      allowPrivate: z.boolean().default(false),
    })
    .prefault({}),
  jobs: z
    .object({
      enabled: z.boolean().default(true),
      pollIntervalMs: z.number().int().min(20).default(1000),
      leaseMs: z.number().int().min(100).default(60000),
      maxAttempts: z.number().int().min(1).max(100).default(3),
    })
    .prefault({}),
  plugins: z
    .object({
      disabled: z.array(z.string()).default([]),
      /** Plugins whose manifest says enabledByDefault: false and that the operator turns on. */
      enabled: z.array(z.string()).default([]),
      paths: z.array(z.string()).default([]),
      options: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
    })
    .prefault({}),
});

export type ConfigInput = z.input<typeof configSchema>;
export type CmsConfig = z.output<typeof configSchema> & {
  /** Folder that relative paths (dataDir, plugin folders, packages) resolve against. */
  root: string;
  /** Absolute data folder. */
  dataPath: string;
  /** Where each value came from, for messages: config path -> "PORT (environment)" etc. */
  sources: Record<string, string>;
  /**
   * Secrets from the environment or the private config written by setup (<data>/private/config.json):
   * JWT_SECRET_KEY, ENCRYPTION_KEY and RATE_LIMIT_SECRET. Mutable: setup fills them in when it writes
   * the private config.
   */
  secrets: { jwtSecretKey?: string; encryptionKey?: string; rateLimitSecret?: string };
};

/** Where setup writes the private config (owner-only): database settings and generated secrets. */
export const privateConfigPath = (dataPath: string) => join(dataPath, 'private', 'config.json');

const PRIVATE_DB_KEYS: Record<string, string> = {
  DB_TYPE: 'type',
  DB_HOST: 'host',
  DB_PORT: 'port',
  DB_NAME: 'name',
  DB_USER: 'user',
  DB_PASSWORD: 'password',
};

type EnvKind = 'string' | 'int' | 'bool' | 'list';
/** Environment variable -> config path and kind. The README lists these. */
export const ENV_VARS: Record<string, [string, EnvKind]> = {
  NODE_ENV: ['env', 'string'],
  HOST: ['host', 'string'],
  PORT: ['port', 'int'],
  CMS_PUBLIC_URL: ['publicUrl', 'string'],
  CMS_DATA_DIR: ['dataDir', 'string'],
  LOG_LEVEL: ['logLevel', 'string'],
  MULTI_TENANT: ['multiTenant', 'bool'],
  DB_TYPE: ['db.type', 'string'],
  DB_URL: ['db.url', 'string'],
  DB_STORAGE: ['db.storage', 'string'],
  DB_HOST: ['db.host', 'string'],
  DB_PORT: ['db.port', 'int'],
  DB_NAME: ['db.name', 'string'],
  DB_USER: ['db.user', 'string'],
  DB_PASSWORD: ['db.password', 'string'],
  DB_POOL_MAX: ['db.poolMax', 'int'],
  CMS_DB_WRITE_WAIT_MS: ['db.writeWaitMs', 'int'],
  CMS_DB_BUSY_TIMEOUT_MS: ['db.busyTimeoutMs', 'int'],
  REDIS_URL: ['redis.url', 'string'],
  CMS_REDIS_PREFIX: ['redis.prefix', 'string'],
  CMS_CACHE_TTL_SECONDS: ['cache.defaultTtlSeconds', 'int'],
  CMS_CACHE_MAX_MB: ['cache.memoryMaxMb', 'int'],
  CMS_CACHE_MAX_ENTRIES: ['cache.memoryMaxEntries', 'int'],
  CMS_CACHE_TENANT_SHARE_PERCENT: ['cache.tenantSharePercent', 'int'],
  CMS_CACHE_LOCAL_MAX_MB: ['cache.localMaxMb', 'int'],
  CMS_CACHE_REDIS_TENANT_LIST_MB: ['cache.redisTenantListMb', 'int'],
  CMS_BODY_LIMIT: ['http.bodyLimit', 'string'],
  CMS_TRUST_PROXY: ['http.trustProxy', 'bool'],
  CMS_PROXY_HOPS: ['http.proxyHops', 'int'],
  CMS_SHUTDOWN_TIMEOUT_MS: ['http.shutdownTimeoutMs', 'int'],
  CMS_SHUTDOWN_DRAIN_MS: ['http.shutdownDrainMs', 'int'],
  CMS_HSTS_MAX_AGE_SECONDS: ['http.hstsMaxAgeSeconds', 'int'],
  CMS_MAX_CONNECTIONS_PER_IP: ['http.maxConnectionsPerIp', 'int'],
  CMS_CONNECTION_CAP_LOOPBACK: ['http.connectionCapLoopback', 'bool'],
  CMS_HEADERS_TIMEOUT_MS: ['http.headersTimeoutMs', 'int'],
  CMS_REQUEST_TIMEOUT_MS: ['http.requestTimeoutMs', 'int'],
  CMS_RATE_LIMIT_ENABLED: ['rateLimit.enabled', 'bool'],
  CMS_RATE_LIMIT_POINTS: ['rateLimit.points', 'int'],
  CMS_POOL_MAX_THREADS: ['pool.maxThreads', 'int'],
  CMS_POOL_NICE_INCREMENT: ['pool.niceIncrement', 'int'],
  CMS_BULK_HEAP_GROWTH_PERCENT: ['runtime.bulkHeapGrowthPercent', 'int'],
  CMS_OUTBOUND_ALLOW_PRIVATE: ['outbound.allowPrivate', 'bool'],
  CMS_JOBS_ENABLED: ['jobs.enabled', 'bool'],
  CMS_JOBS_POLL_MS: ['jobs.pollIntervalMs', 'int'],
  CMS_PLUGINS_DISABLED: ['plugins.disabled', 'list'],
  CMS_PLUGINS_ENABLED: ['plugins.enabled', 'list'],
  CMS_PLUGINS_PATHS: ['plugins.paths', 'list'],
};

function convert(raw: string, kind: EnvKind): unknown {
  switch (kind) {
    case 'int':
      return /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    case 'bool':
      if (/^(1|true|yes|on)$/i.test(raw)) return true;
      if (/^(0|false|no|off)$/i.test(raw)) return false;
      return raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

function setPath(target: Record<string, any>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null || Array.isArray(node[part])) node[part] = {};
    node = node[part];
  }
  node[parts[parts.length - 1]!] = value;
}

/** Fills db.host/port/name/user/password from a `mariadb://user:pass@host:port/name` URL. */
function applyDbUrl(input: Record<string, any>, sourceKey: string): void {
  const url = input.db?.url;
  if (typeof url !== 'string') return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BootError(`Invalid configuration: ${sourceKey} must be a URL such as mariadb://user:password@host:3306/name`);
  }
  if (!/^(mariadb|mysql):$/.test(parsed.protocol)) {
    throw new BootError(`Invalid configuration: ${sourceKey} must use mariadb:// (got ${parsed.protocol}//)`);
  }
  input.db.type = 'mariadb';
  input.db.host = parsed.hostname;
  if (parsed.port) input.db.port = Number(parsed.port);
  if (parsed.username) input.db.user = decodeURIComponent(parsed.username);
  input.db.password = decodeURIComponent(parsed.password);
  const name = parsed.pathname.replace(/^\//, '');
  if (name) input.db.name = decodeURIComponent(name);
}

export interface LoadConfigOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Values that win over file and environment (tests, the CLI). */
  overrides?: ConfigInput;
  /** Skip reading cms.config.json (tests that pass everything in overrides). */
  ignoreFile?: boolean;
}

function deepMerge(base: Record<string, any>, extra: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      typeof out[key] === 'object' &&
      out[key] &&
      !Array.isArray(out[key])
    ) {
      out[key] = deepMerge(out[key], value);
    } else if (value !== undefined) {
      out[key] = value;
    }
  }
  return out;
}

export function loadConfig(options: LoadConfigOptions = {}): CmsConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const sources: Record<string, string> = {};
  let input: Record<string, any> = {};
  let root = cwd;

  if (!options.ignoreFile) {
    const file = env.CMS_CONFIG ? resolve(cwd, env.CMS_CONFIG) : resolve(cwd, 'cms.config.json');
    if (env.CMS_CONFIG && !existsSync(file)) throw new BootError(`Config file not found: CMS_CONFIG=${env.CMS_CONFIG}`);
    if (existsSync(file)) {
      try {
        input = JSON.parse(readFileSync(file, 'utf8'));
      } catch (err) {
        // V8 quotes part of the file in its message; that part may hold a password, so leave it out.
        const reason = (err as Error).message.replace(/,\s*(\.\.\.)?"[\s\S]*"(\.\.\.)?\s+is not valid JSON$/, '');
        throw new BootError(`Config file ${file} is not valid JSON: ${redactString(reason)}`);
      }
      if (!input || typeof input !== 'object' || Array.isArray(input)) throw new BootError(`Config file ${file} must hold a JSON object`);
      root = dirname(file);
      const mark = (obj: Record<string, any>, prefix: string) => {
        for (const [k, v] of Object.entries(obj)) {
          const p = prefix ? `${prefix}.${k}` : k;
          sources[p] = `${p} (cms.config.json)`;
          if (v && typeof v === 'object' && !Array.isArray(v)) mark(v, p);
        }
      };
      mark(input, '');
    }
  }

  for (const [name, [path, kind]] of Object.entries(ENV_VARS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(input, path, convert(raw, kind));
    sources[path] = `${name} (environment)`;
  }
  if (options.overrides) input = deepMerge(input, options.overrides as Record<string, any>);
  applyDbUrl(input, sources['db.url'] ?? 'db.url');

  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const path = issue.path.join('.');
      const where = sources[path] ?? path;
      const got = issue.path.reduce<any>((node, key) => (node == null ? node : node[key as any]), input);
      const shown = /password|secret/i.test(path) ? '[redacted]' : redactString(JSON.stringify(got) ?? String(got));
      return `  - ${where}: ${issue.message}${got === undefined ? '' : ` (got ${shown})`}`;
    });
    throw new BootError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const dataPath = isAbsolute(parsed.data.dataDir) ? parsed.data.dataDir : resolve(root, parsed.data.dataDir);
  const config: CmsConfig = { ...parsed.data, root, dataPath, sources, secrets: {} };
  // The private config sits beneath the environment and cms.config.json: it only fills what they left unset.
  const file = privateConfigPath(dataPath);
  if (!options.ignoreFile && existsSync(file)) {
    let saved: Record<string, unknown>;
    try {
      saved = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new BootError(`Private config ${file} is not valid JSON: ${redactString((err as Error).message.split('\n')[0]!)}`);
    }
    const dbTouched = Object.keys(sources).some((k) => k.startsWith('db.')) || options.overrides?.db !== undefined;
    if (!dbTouched && typeof saved.DB_TYPE === 'string') {
      const db: Record<string, unknown> = { ...config.db };
      for (const [key, field] of Object.entries(PRIVATE_DB_KEYS)) if (saved[key] !== undefined && saved[key] !== '') db[field] = saved[key];
      const checked = configSchema.shape.db.safeParse(db);
      if (!checked.success)
        throw new BootError(
          `Private config ${file} has invalid database settings: ${checked.error.issues.map((i) => i.path.join('.')).join(', ')}`,
        );
      config.db = checked.data;
    }
    if (saved.MULTI_TENANT === true && sources.multiTenant === undefined && options.overrides?.multiTenant === undefined)
      config.multiTenant = true;
    if (typeof saved.JWT_SECRET_KEY === 'string') config.secrets.jwtSecretKey = saved.JWT_SECRET_KEY;
    if (typeof saved.ENCRYPTION_KEY === 'string') config.secrets.encryptionKey = saved.ENCRYPTION_KEY;
    if (typeof saved.RATE_LIMIT_SECRET === 'string') config.secrets.rateLimitSecret = saved.RATE_LIMIT_SECRET;
  }
  if (env.JWT_SECRET_KEY) config.secrets.jwtSecretKey = env.JWT_SECRET_KEY;
  if (env.ENCRYPTION_KEY) config.secrets.encryptionKey = env.ENCRYPTION_KEY;
  if (env.RATE_LIMIT_SECRET) config.secrets.rateLimitSecret = env.RATE_LIMIT_SECRET;
  return config;
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { configSchema, type CmsConfig, type ConfigInput } from './config-schema.js';
import { BootError } from './errors.js';
import { redactString } from './logger.js';
import { convertEnvValue } from './plugin-env.js';

/**
 * Configuration: defaults <- cms.config.json (or CMS_CONFIG) <- environment variables, validated
 * with one zod schema at start. A bad value stops the boot with a message naming the key (the
 * environment variable or the JSON path) and what is allowed.
 */
export { configSchema, type CmsConfig, type ConfigInput } from './config-schema.js';

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
  DB_READ_URLS: ['db.readUrls', 'list'],
  CMS_DB_READ_YOUR_WRITES_MS: ['db.readYourWritesMs', 'int'],
  CMS_DB_REPLICA_RETRY_MS: ['db.replicaRetryMs', 'int'],
  CMS_DB_REPLICA_MAX_LAG_MS: ['db.replicaMaxLagMs', 'int'],
  REDIS_URL: ['redis.url', 'string'],
  CMS_REDIS_PREFIX: ['redis.prefix', 'string'],
  REDIS_SENTINELS: ['redis.sentinels', 'list'],
  REDIS_SENTINEL_MASTER: ['redis.sentinelMaster', 'string'],
  REDIS_PASSWORD: ['redis.password', 'string'],
  REDIS_SENTINEL_PASSWORD: ['redis.sentinelPassword', 'string'],
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
  CMS_CORS_ORIGINS: ['http.corsOrigins', 'list'],
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

/** As a plugin's variable of that type (plugin-env.ts), but a kernel boolean is one of the words exactly, no spaces around. */
function convert(name: string, raw: string, kind: EnvKind): unknown {
  if (kind !== 'bool') return convertEnvValue(raw, kind, name);
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  return raw;
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

/** cms.config.json (or CMS_CONFIG): its object, the folder it sits in, and each key marked as coming from it. */
function readConfigFile(
  cwd: string,
  env: NodeJS.ProcessEnv,
  sources: Record<string, string>,
): { input: Record<string, any>; root: string } {
  const file = env.CMS_CONFIG ? resolve(cwd, env.CMS_CONFIG) : resolve(cwd, 'cms.config.json');
  if (env.CMS_CONFIG && !existsSync(file)) throw new BootError(`Config file not found: CMS_CONFIG=${env.CMS_CONFIG}`);
  if (!existsSync(file)) return { input: {}, root: cwd };
  let input: Record<string, any>;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    // V8 quotes part of the file in its message; that part may hold a password, so leave it out.
    const reason = (err as Error).message.replace(/,\s*(\.\.\.)?"[\s\S]*"(\.\.\.)?\s+is not valid JSON$/, '');
    throw new BootError(`Config file ${file} is not valid JSON: ${redactString(reason)}`);
  }
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new BootError(`Config file ${file} must hold a JSON object`);
  const mark = (obj: Record<string, any>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const p = prefix ? `${prefix}.${k}` : k;
      sources[p] = `${p} (cms.config.json)`;
      if (v && typeof v === 'object' && !Array.isArray(v)) mark(v, p);
    }
  };
  mark(input, '');
  return { input, root: dirname(file) };
}

/** One line per invalid value, naming where it came from (the file key or the variable); secrets are redacted. */
function configIssues(issues: z.ZodIssue[], input: Record<string, any>, sources: Record<string, string>): string {
  const lines = issues.map((issue) => {
    const path = issue.path.join('.');
    // An item of a list names the list's source and its position (CMS_CORS_ORIGINS item 2).
    const last = issue.path[issue.path.length - 1];
    const list = typeof last === 'number' ? sources[issue.path.slice(0, -1).join('.')] : undefined;
    const where = sources[path] ?? (list ? `${list}, item ${Number(last) + 1}` : path);
    const got = issue.path.reduce<any>((node, key) => (node == null ? node : node[key as any]), input);
    const shown = /password|secret/i.test(path) ? '[redacted]' : redactString(JSON.stringify(got) ?? String(got));
    return `  - ${where}: ${issue.message}${got === undefined ? '' : ` (got ${shown})`}`;
  });
  return `Invalid configuration:\n${lines.join('\n')}`;
}

/** The private config (written by setup) sits beneath the environment and cms.config.json: it only fills what they left unset. */
function applyPrivateConfig(config: CmsConfig, options: LoadConfigOptions): void {
  const file = privateConfigPath(config.dataPath);
  if (options.ignoreFile || !existsSync(file)) return;
  let saved: Record<string, unknown>;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BootError(`Private config ${file} is not valid JSON: ${redactString((err as Error).message.split('\n')[0]!)}`);
  }
  const { sources } = config;
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

/**
 * The kernel's config, merged in this order (later wins): cms.config.json (or CMS_CONFIG), the environment
 * variables in ENV_VARS, options.overrides; then the private config fills what none of them set, and the
 * secret variables (JWT_SECRET_KEY, ENCRYPTION_KEY, RATE_LIMIT_SECRET) beat the private config.
 */
export function loadConfig(options: LoadConfigOptions = {}): CmsConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const sources: Record<string, string> = {};
  const file = options.ignoreFile ? { input: {} as Record<string, any>, root: cwd } : readConfigFile(cwd, env, sources);
  const root = file.root;
  let input = file.input;

  for (const [name, [path, kind]] of Object.entries(ENV_VARS)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    setPath(input, path, convert(name, raw, kind));
    sources[path] = `${name} (environment)`;
  }
  if (options.overrides) input = deepMerge(input, options.overrides as Record<string, any>);
  applyDbUrl(input, sources['db.url'] ?? 'db.url');

  const parsed = configSchema.safeParse(input);
  if (!parsed.success) throw new BootError(configIssues(parsed.error.issues, input, sources));
  const dataPath = isAbsolute(parsed.data.dataDir) ? parsed.data.dataDir : resolve(root, parsed.data.dataDir);
  const config: CmsConfig = { ...parsed.data, root, dataPath, sources, secrets: {} };
  applyPrivateConfig(config, options);
  if (env.JWT_SECRET_KEY) config.secrets.jwtSecretKey = env.JWT_SECRET_KEY;
  if (env.ENCRYPTION_KEY) config.secrets.encryptionKey = env.ENCRYPTION_KEY;
  if (env.RATE_LIMIT_SECRET) config.secrets.rateLimitSecret = env.RATE_LIMIT_SECRET;
  return config;
}

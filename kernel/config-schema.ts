import { availableParallelism } from 'node:os';
import { z } from 'zod';

/** The kernel's config schema (cms.config.json keys, with defaults); loadConfig in config.ts fills and validates it. */
const port = z.number().int().min(1).max(65535);

/** An origin exactly as a browser sends it in `Origin`: http(s), host, port only when not the default; no path, no `*`. */
const corsOrigin = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return /^https?:$/.test(url.protocol) && url.origin === value;
    } catch {
      return false;
    }
  },
  { message: 'an origin such as https://www.example.org or http://localhost:5173 (lower case, no path, no trailing slash, no *)' },
);

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
      /** MariaDB read replicas (`mariadb://user:password@host:port`; user and password default to the primary's). */
      readUrls: z
        .array(z.string().regex(/^(mariadb|mysql):\/\/[^\s]+$/, 'must be a mariadb:// URL'))
        .max(16)
        .default([]),
      /** After a caller's write, its reads go to the primary until the replicas have it, at most this long. */
      readYourWritesMs: z.number().int().min(0).max(300000).default(5000),
      /** A replica that failed serves no reads for this long (then it is tried again). */
      replicaRetryMs: z.number().int().min(100).max(600000).default(5000),
      /** A replica further behind the primary than this serves no reads until it catches up; 0: no bound. */
      replicaMaxLagMs: z.number().int().min(0).max(3600000).default(30000),
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
      /** Redis through Sentinel (instead of url): the sentinels, `host:port` each, and the master's name. */
      sentinels: z
        .array(z.string().regex(/^[\w.:[\]-]+:\d{1,5}$/, 'each must be host:port'))
        .max(16)
        .optional(),
      sentinelMaster: z.string().min(1).max(200).optional(),
      /** The data nodes' password (requirepass) with sentinels; never logged. */
      password: z.string().max(1000).optional(),
      /** The sentinels' own password, when they have one; never logged. */
      sentinelPassword: z.string().max(1000).optional(),
    })
    .refine((r) => !r.sentinels?.length || r.sentinelMaster, {
      message: 'REDIS_SENTINELS needs REDIS_SENTINEL_MASTER (the name the sentinels monitor the master under)',
      path: ['sentinelMaster'],
    })
    .refine((r) => !(r.sentinels?.length && r.url), { message: 'set REDIS_URL or REDIS_SENTINELS, not both', path: ['sentinels'] })
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
       * CMS_CORS_ORIGINS: the exact origins (scheme, host, port) whose pages may call the API with a bearer token
       * or API key (kernel/http/cors.ts); empty (the default): no CORS headers at all.
       */
      corsOrigins: z.array(corsOrigin).max(100).default([]),
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

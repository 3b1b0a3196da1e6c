import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig, type ConfigInput, type CmsConfig } from '../../kernel/config.js';
import { BootError } from '../../kernel/errors.js';
import { createKernel, type Kernel } from '../../kernel/index.js';
import { createLogger } from '../../kernel/logger.js';
import { DIST_ROOT } from '../../kernel/version.js';
import { createMariaDbDatabase, requireSharedServices, requireVariant, uniqueName, REDIS_URL, type DbVariant } from './services.js';
import { createUsers, type NewUser } from './users.js';

/** Compiled fixture plugins (test/fixtures/plugins/<id>). */
export const FIXTURE_PLUGINS = join(DIST_ROOT, 'test', 'fixtures', 'plugins');
export const fixturePlugin = (id: string) => join(FIXTURE_PLUGINS, id);

export function tempDir(prefix = 'cms-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestKernelOptions {
  db?: 'sqlite' | 'mariadb';
  cache?: 'memory' | 'redis';
  /** Extra plugin folders or packages (plugins.paths). */
  plugins?: string[];
  /** Deep-merged over the test defaults. */
  config?: ConfigInput;
  /** Reuse a data folder (two kernels on one SQLite file). */
  dataDir?: string;
  /** Reuse a MariaDB URL (two kernels on one database). */
  dbUrl?: string;
  /** Do not call start(). */
  noStart?: boolean;
  /**
   * Enable the setup plugin (and with it the redirect to /setup until setup completes). Off by
   * default, so tests of other parts see a configured instance, as an operator who disables setup would.
   */
  setup?: boolean;
  /** Keep the log lines (JSON text) of this level and above in `logs` instead of silencing them. */
  captureLogs?: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  /** The environment plugins read their declared variables from (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/** A fetch Response whose json() is typed for assertions. */
export type TestResponse = Omit<Response, 'json'> & { json(): Promise<any> };

/** The `name=value` part of a Set-Cookie header of the response, or null. */
export function responseCookie(res: TestResponse, name = 'session'): string | null {
  return (
    res.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${name}=`))
      ?.split(';')[0] ?? null
  );
}

/** fetch() for tests: the same, with json() typed as any. */
export const get = (url: string, init?: RequestInit): Promise<TestResponse> => fetch(url, init);

export interface TestKernel {
  kernel: Kernel;
  url: string;
  config: CmsConfig;
  dataDir: string;
  dbUrl?: string;
  /** The captured log lines (captureLogs), oldest first. */
  logs: string[];
  /** fetch against the kernel: path relative to its URL. */
  request(path: string, init?: RequestInit & { identity?: string; json?: unknown }): Promise<TestResponse>;
  close(): Promise<void>;
}

/**
 * Boots a real kernel on 127.0.0.1 with a free port, a temporary data folder, SQLite or a fresh
 * MariaDB database, memory or Redis (a unique key prefix), quiet logs, and the given plugins.
 */
export async function startTestKernel(options: TestKernelOptions = {}): Promise<TestKernel> {
  const dataDir = options.dataDir ?? tempDir();
  const ownsData = options.dataDir === undefined;
  let dbUrl = options.dbUrl;
  let dropDb: (() => Promise<void>) | undefined;
  if (options.db === 'mariadb' && !dbUrl) {
    const created = await createMariaDbDatabase();
    dbUrl = created.url;
    dropDb = created.drop;
  }
  const overrides: ConfigInput = {
    env: 'test',
    host: '127.0.0.1',
    port: 0,
    dataDir,
    logLevel: 'silent',
    db: dbUrl ? { url: dbUrl } : { type: 'sqlite', storage: 'cms.sqlite' },
    redis: options.cache === 'redis' ? { url: REDIS_URL, prefix: uniqueName('cmstest') } : {},
    pool: { maxThreads: 2 },
    jobs: { pollIntervalMs: 50 },
    rateLimit: { enabled: false },
    plugins: { paths: options.plugins ?? [], disabled: options.setup ? [] : ['setup'] },
  };
  const merged = deepMerge(overrides, options.config ?? {});
  // A test's own disabled list keeps setup off too, unless the test asks for setup.
  merged.plugins.disabled = [...new Set([...(merged.plugins.disabled ?? []), ...(options.setup ? [] : ['setup'])])];
  if (options.captureLogs) merged.logLevel = options.captureLogs;
  const config = loadConfig({ ignoreFile: true, env: {}, overrides: merged });
  const logs: string[] = [];
  const sink = { write: (line: string) => void logs.push(line) };
  const kernel = createKernel({
    config,
    env: options.env,
    logger: options.captureLogs ? createLogger(config.logLevel, sink) : createLogger(config.logLevel),
  });
  if (!options.noStart) await kernel.start();
  let closed = false;
  return {
    kernel,
    config,
    dataDir,
    dbUrl,
    logs,
    get url() {
      return kernel.url;
    },
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.identity) headers.set('x-test-identity', init.identity);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(`${kernel.url}${path}`, { ...init, headers, body });
    },
    async close() {
      if (closed) return;
      closed = true;
      await kernel.close();
      if (dropDb) await dropDb();
      if (ownsData) rmSync(dataDir, { recursive: true, force: true });
    },
  } as TestKernel;
}

/**
 * The config of a kernel a test builds itself (for its own env or logger): no config file or environment,
 * a free port on 127.0.0.1, SQLite in dataDir, no rate limit; `overrides` gives the rest (log level, plugins).
 */
export function sqliteKernelConfig(dataDir: string, overrides: ConfigInput): CmsConfig {
  return loadConfig({
    ignoreFile: true,
    env: {},
    overrides: {
      env: 'test',
      host: '127.0.0.1',
      port: 0,
      dataDir,
      db: { type: 'sqlite', storage: 'cms.sqlite' },
      rateLimit: { enabled: false },
      ...overrides,
    },
  });
}

/**
 * Two kernels of one installation: one MariaDB database (made for the first) and one Redis key prefix.
 * Needs both services (requireSharedServices).
 */
export async function startTwoInstances(options: TestKernelOptions, prefix: string): Promise<[TestKernel, TestKernel]> {
  const config = { ...options.config, redis: { url: REDIS_URL, prefix: uniqueName(prefix) } };
  const a = await startTestKernel({ ...options, db: 'mariadb', config });
  try {
    return [a, await startTestKernel({ ...options, dbUrl: a.dbUrl, config })];
  } catch (err) {
    await a.close();
    throw err;
  }
}

export interface KernelHooks {
  /** The service variant the suite runs on: skipped (saying why) when its variable is unset. */
  variant?: { available: boolean; skipReason?: string };
  /** Users to create once the kernel has booted (through the auth plugin's users service). */
  users?: NewUser[];
  /** Runs once the kernel has booted and has its users, before the first test (collections, settings). */
  seed?: () => Promise<void>;
}

/**
 * Mocha hooks in the calling describe(): boots a kernel before its tests and closes it after them.
 * The returned handle reads the booted kernel, so the suite's tests and helpers use it as a TestKernel.
 * Options given as a function are read when the kernel boots (a time, a folder made by an earlier hook).
 */
export function useTestKernel(
  options: TestKernelOptions | (() => TestKernelOptions),
  hooks: KernelHooks = {},
  start = startTestKernel,
): TestKernel {
  let booted: TestKernel | undefined;
  const current = (): TestKernel => {
    if (!booted) throw new Error('the test kernel is used before its suite booted it');
    return booted;
  };
  before(async function () {
    if (hooks.variant) requireVariant(this, hooks.variant);
    booted = await start(typeof options === 'function' ? options() : options);
    if (hooks.users) await createUsers(booted, ...hooks.users);
    await hooks.seed?.();
  });
  after(async () => booted?.close());
  return kernelHandle(current);
}

/**
 * Mocha hooks in the calling describe(): two instances of one installation (startTwoInstances) booted
 * before its tests, the suite skipped (saying why) without MariaDB and Redis; closed after them, B first.
 */
export function useTwoInstances(options: TestKernelOptions, prefix: string): [TestKernel, TestKernel] {
  let pair: [TestKernel, TestKernel] | undefined;
  const current = (i: 0 | 1) => (): TestKernel => {
    if (!pair) throw new Error('the test kernels are used before their suite booted them');
    return pair[i];
  };
  before(async function () {
    requireSharedServices(this);
    pair = await startTwoInstances(options, prefix);
  });
  after(async () => {
    await pair?.[1].close();
    await pair?.[0].close();
  });
  return [kernelHandle(current(0)), kernelHandle(current(1))];
}

/** A TestKernel that reads the kernel `current` gives at each use (one a hook boots later). */
function kernelHandle(current: () => TestKernel): TestKernel {
  return {
    get kernel() {
      return current().kernel;
    },
    get url() {
      return current().url;
    },
    get config() {
      return current().config;
    },
    get dataDir() {
      return current().dataDir;
    },
    get dbUrl() {
      return current().dbUrl;
    },
    get logs() {
      return current().logs;
    },
    request: (path, init) => current().request(path, init),
    close: () => current().close(),
  };
}

/**
 * useTestKernel with the test identities (the test-identity plugin) on the database of `variant`, the suite
 * skipped when the variant is unavailable; `hooks` (users, seed) as for useTestKernel, `options` the other
 * options (its plugins come after test-identity; a function is read when the kernel boots).
 */
export function useIdentityKernel(
  variant: DbVariant,
  hooks: Omit<KernelHooks, 'variant'> = {},
  options: TestKernelOptions | (() => TestKernelOptions) = {},
): TestKernel {
  return useTestKernel(
    () => {
      const extra = typeof options === 'function' ? options() : options;
      return { ...extra, db: variant.name, plugins: [fixturePlugin('test-identity'), ...(extra.plugins ?? [])] };
    },
    { variant, ...hooks },
  );
}

function deepMerge(base: any, extra: any): any {
  const out: any = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && base[k] && typeof base[k] === 'object' ? deepMerge(base[k], v) : v;
  }
  return out;
}

/** Writes a plugin folder (plugin.json + index.js) for loader tests. */
export function writePlugin(root: string, manifest: Record<string, unknown>, code = 'export default { register() {} };\n'): string {
  const dir = join(root, String(manifest.id));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'plugin.json'),
    JSON.stringify({ name: String(manifest.id), version: '1.0.0', kernel: '^1.0.0', ...manifest }, null, 2),
  );
  writeFileSync(join(dir, 'index.js'), code);
  return dir;
}

/** A temporary folder for plugins written by a test (an ES-module package), removed by the caller from `cleanup`. */
export function pluginRoot(cleanup: string[], prefix = 'cms-test-plugins-'): string {
  const root = tempDir(prefix);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  cleanup.push(root);
  return root;
}

/**
 * Mocha hook in the calling describe(): the folders a test pushes on the returned list (pluginRoot, tempDir)
 * are removed after the suite's tests.
 */
export function useCleanup(): string[] {
  const cleanup: string[] = [];
  after(() => {
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });
  return cleanup;
}

/** A core-phase plugin, written in a new temporary folder, whose async boot() runs `bootBody`. */
export function corePlugin(id: string, bootBody: string): string {
  return writePlugin(tempDir(), { id, phase: 'core' }, `export default { register() {}, async boot() { ${bootBody} } };\n`);
}

/** The core plugin `slow-core`, whose boot takes `ms`: the kernel stays before READY meanwhile. */
export const slowCorePlugin = (ms: number): string => corePlugin('slow-core', `await new Promise((r) => setTimeout(r, ${ms}));`);

/** Writes one plugin in a new folder of `cleanup` (pluginRoot) and returns the message of the BootError its boot stops with. */
export async function pluginBootFailure(cleanup: string[], manifest: Record<string, unknown>, code?: string): Promise<string> {
  const dir = writePlugin(pluginRoot(cleanup), manifest, code);
  return (await bootFailure({ plugins: [dir] })).message;
}

/** Starts a kernel built by the test that must fail to boot and returns its BootError; the kernel is closed either way. */
export async function startFailure(kernel: Kernel): Promise<Error> {
  let failure: unknown;
  try {
    await kernel.start();
  } catch (err) {
    failure = err;
  } finally {
    await kernel.close();
  }
  expect(failure).to.be.instanceOf(BootError);
  return failure as Error;
}

/** Starts a kernel that must fail to boot and returns its BootError (with its data folder removed). */
export async function bootFailure(options: TestKernelOptions): Promise<Error> {
  const dataDir = tempDir('cms-boot-failure-');
  let kernel: TestKernel | undefined;
  let failure: unknown;
  try {
    kernel = await startTestKernel({ ...options, dataDir });
  } catch (err) {
    failure = err;
  } finally {
    await kernel?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (failure === undefined) expect.fail('the kernel booted, but it should have refused to');
  expect(failure).to.be.instanceOf(BootError);
  return failure as Error;
}

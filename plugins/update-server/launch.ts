import { join } from 'node:path';
import { type CmsConfig, type Logger, DIST_ROOT } from '../../kernel/sdk.js';
import { loadConfig } from '../../kernel/config.js';
import { discoverFolder } from '../../kernel/discovery.js';
import { createKernel, type Kernel } from '../../kernel/index.js';
import { createLogger } from '../../kernel/logger.js';

/**
 * `npm run update-server`: the same kernel with one plugin. The plugin's folder is outside the built-in
 * plugin folder (an instance never discovers it); here it is loaded through plugins.paths and every
 * built-in plugin is disabled, so the server gets the kernel's database, migrations, rate limiter,
 * logging and config, and nothing of an instance (only the `health` probe stays).
 */
export const UPDATE_SERVER_PLUGIN_DIR = join(DIST_ROOT, 'plugins', 'update-server', 'service');
export const UPDATE_SERVER_DEFAULT_PORT = 4000;
export const UPDATE_SERVER_DEFAULT_DATA_DIR = './update-server-data';

/** Built-in plugins the update server keeps: the liveness probe GET /api/health (for load balancers). */
export const UPDATE_SERVER_BUILTINS = ['health'];

/** The ids of the built-in plugins the update server disables: all but UPDATE_SERVER_BUILTINS. */
export function builtinPluginIds(): string[] {
  return discoverFolder(join(DIST_ROOT, 'plugins'))
    .map((p) => p.manifest.id)
    .filter((id) => !UPDATE_SERVER_BUILTINS.includes(id));
}

/**
 * The update server's kernel config from its own variables (never an instance's PORT, DB_* or
 * cms.config.json): UPDATE_SERVER_PORT (default 4000), UPDATE_SERVER_HOST (default 127.0.0.1),
 * UPDATE_SERVER_DATA_DIR (default ./update-server-data: its SQLite file and generated keys),
 * UPDATE_SERVER_DB_URL (MariaDB instead), UPDATE_SERVER_TRUST_PROXY / UPDATE_SERVER_PROXY_HOPS (client
 * IPs from X-Forwarded-For behind a proxy), LOG_LEVEL and NODE_ENV.
 */
export function updateServerConfig(env: Record<string, string | undefined>, cwd?: string): CmsConfig {
  const pick = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);
  const kernelEnv: Record<string, string | undefined> = {
    NODE_ENV: pick(env.NODE_ENV),
    LOG_LEVEL: pick(env.LOG_LEVEL),
    HOST: pick(env.UPDATE_SERVER_HOST),
    PORT: pick(env.UPDATE_SERVER_PORT) ?? String(UPDATE_SERVER_DEFAULT_PORT),
    CMS_DATA_DIR: pick(env.UPDATE_SERVER_DATA_DIR) ?? UPDATE_SERVER_DEFAULT_DATA_DIR,
    DB_URL: pick(env.UPDATE_SERVER_DB_URL),
    CMS_TRUST_PROXY: pick(env.UPDATE_SERVER_TRUST_PROXY),
    CMS_PROXY_HOPS: pick(env.UPDATE_SERVER_PROXY_HOPS),
  };
  return loadConfig({
    cwd,
    ignoreFile: true,
    env: kernelEnv,
    overrides: {
      db: { storage: 'update-server.sqlite' },
      jobs: { enabled: false },
      pool: { maxThreads: 1 },
      plugins: { paths: [UPDATE_SERVER_PLUGIN_DIR], disabled: builtinPluginIds(), enabled: [], options: {} },
    },
  });
}

/** Builds (does not start) the update server's kernel; `env` also feeds the plugin's UPDATE_SERVER_* settings. */
export function createUpdateServer(env: Record<string, string | undefined>, logger?: Logger): Kernel {
  const config = updateServerConfig(env);
  return createKernel({ config, env, logger: logger ?? createLogger(config.logLevel) });
}

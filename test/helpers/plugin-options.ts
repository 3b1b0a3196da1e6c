import type { z } from 'zod';
import { resolvePluginOptions } from '../../kernel/plugin-config.js';
import { readPluginEnv } from '../../kernel/plugin-env.js';

/**
 * A plugin's options as the kernel builds them at register (no System Settings yet): `env` is what the
 * manifest's `env` mapped (option path -> value), read by the plugin's own `readEnv` when it has one,
 * over `plugins.options.<id>` (`raw`), validated by the plugin's schema.
 */
export function pluginOptions<O>(
  pluginId: string,
  schema: z.ZodType<O>,
  readEnv: ((values: Record<string, any>, sources: Record<string, string>) => Record<string, any>) | undefined,
  raw: unknown,
  env: Record<string, unknown> = {},
  sources: Record<string, string> = {},
): O {
  const layers = {
    pluginId,
    options: raw,
    env: readPluginEnv({ values: env, sources }, readEnv),
    settingsMapping: {},
    settings: new Map(),
  };
  return resolvePluginOptions(schema, layers).value;
}

import type { Logger } from '../logger.js';

/**
 * System Settings (default tenant) through the setup plugin's optional `settings` container key; {}
 * when the setup plugin is disabled. A failing read is logged and ignored: settings come third.
 */
export async function readSettings(cradle: Record<string, any>, keys: string[], logger: Logger): Promise<Record<string, unknown>> {
  let settings: { get(key: string): Promise<unknown> } | undefined;
  try {
    settings = cradle.settings as typeof settings;
  } catch {
    return {};
  }
  if (!settings) return {};
  try {
    const values = await Promise.all(keys.map(async (key) => [key, await settings!.get(key)] as const));
    return Object.fromEntries(values.filter(([, v]) => v !== undefined && v !== null && v !== ''));
  } catch (err) {
    logger.warn({ err }, 'cannot read the media storage settings; using environment, options and defaults');
    return {};
  }
}

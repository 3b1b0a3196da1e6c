import { z } from 'zod';
import type { SessionOptions } from './sessions-service.js';

const sessionSettingsSchema = z.object({
  SESSION_DEVICE_POLICY: z.enum(['single-per-device', 'single-per-user', 'allow-multiple']).optional(),
  SESSION_TTL_HOURS: z.number().min(0.01).optional(),
  SESSION_IDLE_HOURS: z.number().min(0).optional(),
  SESSION_MAX_PER_USER: z.number().int().min(0).optional(),
});

type SettingsReader = { get(key: string, tenantId?: string): Promise<unknown> };

/** The setup plugin's settings store, when it is there (auth does not require it). */
function settingsOf(cradle: object): SettingsReader | undefined {
  try {
    return (cradle as { settings?: SettingsReader }).settings;
  } catch {
    return undefined;
  }
}

/**
 * The spec's session settings live in System Settings once setup has seeded them. The settings store
 * belongs to the setup plugin, reached through the container when it is there (auth does not require it).
 */
export async function sessionSettings(cradle: object): Promise<Partial<SessionOptions>> {
  const settings = settingsOf(cradle);
  if (!settings) return {};
  const raw = Object.fromEntries(
    await Promise.all(
      ['SESSION_DEVICE_POLICY', 'SESSION_TTL_HOURS', 'SESSION_IDLE_HOURS', 'SESSION_MAX_PER_USER'].map(
        async (k) => [k, await settings.get(k)] as const,
      ),
    ),
  );
  const parsed = sessionSettingsSchema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined && v !== null)));
  if (!parsed.success) return {};
  const s = parsed.data;
  return {
    ...(s.SESSION_DEVICE_POLICY ? { devicePolicy: s.SESSION_DEVICE_POLICY } : {}),
    ...(s.SESSION_TTL_HOURS !== undefined ? { ttlHours: s.SESSION_TTL_HOURS } : {}),
    ...(s.SESSION_IDLE_HOURS !== undefined ? { idleHours: s.SESSION_IDLE_HOURS } : {}),
    ...(s.SESSION_MAX_PER_USER !== undefined ? { maxPerUser: s.SESSION_MAX_PER_USER } : {}),
  };
}

/** The tenant's site name (SITE_NAME, from the setup plugin's settings when it is there). */
export async function siteName(cradle: object, tenantId: string): Promise<string | null> {
  try {
    const name = await settingsOf(cradle)?.get('SITE_NAME', tenantId);
    return typeof name === 'string' && name.trim() ? name.trim().slice(0, 64) : null;
  } catch {
    return null;
  }
}

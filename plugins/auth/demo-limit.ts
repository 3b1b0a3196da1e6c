import { defineError, optional, modelOf, type ModelMap } from '../../kernel/sdk.js';
import { User } from './models/user.js';

/** Default of DEMO_MAX_USERS when the setting is missing or not a whole number >= 0. */
export const DEFAULT_DEMO_MAX_USERS = 100;

export class DemoUserLimitError extends defineError(
  'DEMO_USER_LIMIT',
  403,
  'DEMO_MODE is on and the tenant already has DEMO_MAX_USERS users (default 100): sign-up is refused; the invitation stays unused.',
  (max: number) => ({
    message: `This demo accepts at most ${max} users; sign-up is closed`,
    extra: { maxUsers: max },
  }),
) {}

/**
 * The demo-mode gate of sign-up: with DEMO_MODE true, refuses a new account once the tenant has
 * DEMO_MAX_USERS users. Reads the two System Settings of the tenant (only when someone signs up);
 * without the settings store (setup plugin disabled) there is no demo mode.
 */
export async function assertDemoRoom(scope: object, tenantId: string): Promise<void> {
  const settings = optional(scope, 'settings');
  if (!settings || (await settings.get('DEMO_MODE', tenantId)) !== true) return;
  const raw = await settings.get('DEMO_MAX_USERS', tenantId);
  const max = typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 ? raw : DEFAULT_DEMO_MAX_USERS;
  if ((await modelOf(scope as { models: ModelMap }, User).count({ where: { tenant_id: tenantId } })) >= max)
    throw new DemoUserLimitError(max);
}

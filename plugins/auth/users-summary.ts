import { QueryTypes } from 'sequelize';
import type { User as UserRow } from './models/user.js';

/** Figures of the tenant's users for the dashboard (security, provisioning health); no personal data. */
export async function usersSummary(User: typeof UserRow, tenantId: string) {
  const users = await User.findAll({
    where: { tenant_id: tenantId },
    attributes: ['role', 'blocked', 'lockout_until', 'failed_attempts', 'two_factor_enabled', 'created_at'],
  });
  const now = Date.now();
  const byRole: Record<string, number> = {};
  let blocked = 0,
    locked = 0,
    failedAttempts = 0,
    twoFactor = 0,
    recent = 0;
  for (const u of users) {
    byRole[u.role] = (byRole[u.role] ?? 0) + 1;
    if (u.blocked) blocked++;
    if (u.lockout_until !== null && Number(u.lockout_until) > now) locked++;
    failedAttempts += Number(u.failed_attempts ?? 0);
    if (u.two_factor_enabled) twoFactor++;
    if (now - new Date(u.created_at).getTime() < 30 * 24 * 3600 * 1000) recent++;
  }
  // An account locked for some clients only (auth_login_failures) counts as locked too.
  const [clientLocked] = await User.sequelize!.query<{ n: number | string }>(
    `SELECT COUNT(DISTINCT f.user_id) AS n FROM auth_login_failures f JOIN auth_users u ON u.id = f.user_id
      WHERE u.tenant_id = ? AND f.lockout_until > ? AND (u.lockout_until IS NULL OR u.lockout_until <= ?)`,
    { replacements: [tenantId, now, now], type: QueryTypes.SELECT },
  );
  locked += Number(clientLocked?.n ?? 0);
  return {
    total: users.length,
    active: users.length - blocked,
    blocked,
    locked,
    failedAttempts,
    twoFactorEnabled: twoFactor,
    createdLast30Days: recent,
    byRole,
  };
}

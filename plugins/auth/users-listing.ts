import { Op } from 'sequelize';
import { likeContains } from '../../kernel/text/like-contains.js';
import type { User as UserRow } from './models/user.js';
import { toPublicUser } from './public-user.js';

/** One page of the tenant's users for the admin's list, newest first; `search` matches email or username. */
export async function listUsers(User: typeof UserRow, tenantId: string, query: { page: number; limit: number; search?: string }) {
  const where: Record<string | symbol, unknown> = { tenant_id: tenantId };
  if (query.search) {
    const db = User.sequelize!;
    where[Op.or] = [likeContains(db, 'email', query.search), likeContains(db, 'username', query.search)];
  }
  const { rows, count } = await User.findAndCountAll({
    where,
    order: [['created_at', 'DESC']],
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
  });
  return {
    items: rows.map((u) => ({
      ...toPublicUser(u),
      blocked: Boolean(u.blocked),
      is2FAEnabled: Boolean(u.two_factor_enabled),
      createdAt: new Date(u.created_at).toISOString(),
    })),
    total: count,
    page: query.page,
    limit: query.limit,
  };
}

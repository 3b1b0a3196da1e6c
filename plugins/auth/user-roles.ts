/**
 * The tenant's roles and their permissions, read and written for UsersService (a row keeps its
 * permissions as JSON text).
 */
import type { Role as RoleRow } from './models/role.js';
import { BUILT_IN_ROLES } from './roles.js';

/** The kernel's bound Role model (models per kernel). */
type RoleModel = typeof RoleRow;

/** The tenant's roles with their permissions (built-in admin, editor, viewer, guest and any added). */
export async function rolesOf(
  Role: RoleModel,
  tenantId: string,
): Promise<Array<{ name: string; description: string; permissions: string[] }>> {
  const rows = await Role.findAll({ where: { tenant_id: tenantId }, order: [['name', 'ASC']] });
  return rows.map((r) => ({ name: r.name, description: r.description, permissions: JSON.parse(r.permissions) as string[] }));
}

export async function roleExists(Role: RoleModel, role: string, tenantId: string): Promise<boolean> {
  return (await Role.findOne({ where: { tenant_id: tenantId, name: role } })) !== null;
}

export async function permissionsOf(Role: RoleModel, role: string, tenantId: string): Promise<string[]> {
  const row = await Role.findOne({ where: { tenant_id: tenantId, name: role } });
  return row ? (JSON.parse(row.permissions) as string[]) : [];
}

/**
 * Grants or withdraws one permission of the tenant's guest role, read and written in one transaction
 * (so two grants at once both land); the row is created when missing. Returns the guest role's permissions.
 */
export async function writeGuestGrant(Role: RoleModel, tenantId: string, permission: string, granted: boolean): Promise<string[]> {
  return Role.sequelize!.transaction(async (transaction) => {
    const row = await Role.findOne({
      where: { tenant_id: tenantId, name: 'guest' },
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    const current = row ? (JSON.parse(row.permissions) as string[]) : [];
    const next = granted ? [...new Set([...current, permission])] : current.filter((p) => p !== permission);
    if (next.length === current.length && next.every((p, i) => p === current[i])) return current;
    if (row) await Role.update({ permissions: JSON.stringify(next) }, { where: { tenant_id: tenantId, name: 'guest' }, transaction });
    else
      await Role.create(
        { tenant_id: tenantId, name: 'guest', description: BUILT_IN_ROLES.guest!.description, permissions: JSON.stringify(next) },
        { transaction },
      );
    return next;
  });
}

/**
 * The tenant's roles and their permissions, read and written for UsersService (a row keeps its
 * permissions as JSON text).
 */
import { randomUUID } from 'node:crypto';
import { UniqueConstraintError } from 'sequelize';
import { ConflictError, type AccessRule } from '../../kernel/sdk.js';
import type { Role as RoleRow } from './models/role.js';
import type { User as UserRow } from './models/user.js';
import { BUILT_IN_ROLES } from './roles.js';

/** The kernel's bound Role and User models (models per kernel). */
type RoleModel = typeof RoleRow;
type UserModel = typeof UserRow;

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

/** What a role is made of when written. */
export type RoleInput = { name: string; description: string; permissions: string[]; rules: AccessRule[] };

/** A role as GET /api/roles answers it. */
export interface RoleView {
  _id: string;
  name: string;
  description: string;
  builtIn: boolean;
  permissions: string[];
  rules: AccessRule[];
}

/** A row's rules (JSON text; null or unreadable: none). */
export function rulesOfRow(text: string | null | undefined): AccessRule[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as AccessRule[]) : [];
  } catch {
    return [];
  }
}

/** The rules of one role of a tenant (none when it has none or does not exist). */
export async function rulesOfRole(Role: RoleModel, tenantId: string, role: string): Promise<AccessRule[]> {
  const row = await Role.findOne({ attributes: ['rules'], where: { tenant_id: tenantId, name: role } });
  return rulesOfRow(row?.rules);
}

const rulesText = (rules: AccessRule[]) => (rules.length ? JSON.stringify(rules) : null);

const viewOf = (r: RoleRow): RoleView => ({
  _id: r.id!,
  name: r.name,
  description: r.description,
  builtIn: Object.hasOwn(BUILT_IN_ROLES, r.name),
  permissions: JSON.parse(r.permissions) as string[],
  rules: rulesOfRow(r.rules),
});

/** The tenant's roles with ids, built-in first, then by name; rows without an id (raw SQL, an old backup) get one. */
export async function roleViews(Role: RoleModel, tenantId: string): Promise<RoleView[]> {
  let rows = await Role.findAll({ where: { tenant_id: tenantId }, order: [['name', 'ASC']] });
  if (rows.some((r) => !r.id)) {
    for (const r of rows.filter((row) => !row.id))
      await Role.update({ id: randomUUID() }, { where: { tenant_id: tenantId, name: r.name, id: null } });
    rows = await Role.findAll({ where: { tenant_id: tenantId }, order: [['name', 'ASC']] });
  }
  const order = Object.keys(BUILT_IN_ROLES);
  const rank = (v: RoleView) => (v.builtIn ? order.indexOf(v.name) : order.length);
  return rows.map(viewOf).sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** One of the tenant's roles by id, or null (another tenant's id is null too). */
export async function roleById(Role: RoleModel, tenantId: string, id: string): Promise<RoleView | null> {
  const row = await Role.findOne({ where: { tenant_id: tenantId, id } });
  return row ? viewOf(row) : null;
}

export async function insertRole(Role: RoleModel, tenantId: string, input: RoleInput): Promise<RoleView> {
  try {
    const row = await Role.create({
      id: randomUUID(),
      tenant_id: tenantId,
      name: input.name,
      description: input.description,
      permissions: JSON.stringify(input.permissions),
      rules: rulesText(input.rules),
    });
    return viewOf(row);
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw new ConflictError(`A role named '${input.name}' already exists`);
    throw err;
  }
}

/**
 * Writes a role's new name, description or permissions. A rename renames the role of every user holding it
 * in the same transaction (users hold their role by name); a name already taken is 409 CONFLICT.
 */
export async function writeRole(Role: RoleModel, User: UserModel, tenantId: string, current: RoleView, next: RoleInput): Promise<RoleView> {
  await Role.sequelize!.transaction(async (transaction) => {
    if (next.name !== current.name && (await Role.findOne({ where: { tenant_id: tenantId, name: next.name }, transaction })))
      throw new ConflictError(`A role named '${next.name}' already exists`);
    await Role.update(
      { name: next.name, description: next.description, permissions: JSON.stringify(next.permissions), rules: rulesText(next.rules) },
      { where: { tenant_id: tenantId, id: current._id }, transaction },
    );
    if (next.name !== current.name)
      await User.update({ role: next.name }, { where: { tenant_id: tenantId, role: current.name }, transaction });
  });
  return { ...current, ...next };
}

/** Deletes a custom role nobody holds (checked in the same transaction): 409 CONFLICT otherwise. */
export async function removeRole(Role: RoleModel, User: UserModel, tenantId: string, role: RoleView): Promise<void> {
  if (role.builtIn) throw new ConflictError(`'${role.name}' is a built-in role and cannot be deleted`);
  await Role.sequelize!.transaction(async (transaction) => {
    const holders = await User.count({ where: { tenant_id: tenantId, role: role.name }, transaction });
    if (holders > 0)
      throw new ConflictError(
        `The role '${role.name}' is still held by ${holders} user${holders === 1 ? '' : 's'}; give them another role first`,
      );
    await Role.destroy({ where: { tenant_id: tenantId, id: role._id }, transaction });
  });
}

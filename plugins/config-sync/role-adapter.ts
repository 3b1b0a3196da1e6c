/**
 * Roles as configuration: a role's description, permissions and rules (role-rules.ts: `rules` only in the files
 * of roles that have some). A promoted rename carries the users holding the role along; after apply the cached
 * sessions and tokens of the holders of a changed role are dropped, and ROLE_CHANGED makes every instance read
 * the role's rules again. `admin` and roles some user holds are never deleted.
 */
import { Op, type Model, type ModelStatic } from 'sequelize';
import { optional, ValidationError, type AccessRule, type ContainerServices } from '../../kernel/sdk.js';
import { ROLE_CHANGED } from '../auth/public.js';
import type { DbResource, ResourceAdapter } from './resources.js';
import { rulesColumn, rulesOfColumn, rulesProblem } from './role-rules.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the role adapter uses of the resource adapters' kit: the container and the models. */
export interface RoleAdapterKit {
  cradle: () => ContainerServices & Record<string, any>;
  model: (name: string) => ModelStatic<Model> & Record<string, any>;
}

/** A file's data as the columns of its auth_roles row. */
const columns = (name: string, data: Record<string, unknown>) => ({
  name,
  description: data.description,
  permissions: JSON.stringify([...(data.permissions as string[])].sort()),
  rules: rulesColumn(data.rules),
});

/** The tenant's roles as resources: a role some user holds, and `admin`, are protected. */
async function readRoles(kit: RoleAdapterKit, tenantId: string): Promise<DbResource[]> {
  const { cradle, model } = kit;
  const roles = await cradle().users.roles(tenantId);
  const rows = await model('Role').findAll({ where: { tenant_id: tenantId }, attributes: ['name', 'rules'], raw: true });
  const rules = new Map(rows.map((r: any) => [String(r.name), rulesOfColumn(r.rules)]));
  const User = model('User');
  const held = new Set(
    (await User.findAll({ where: { tenant_id: tenantId }, attributes: ['role'], group: ['role'] })).map((u: any) => String(u.role)),
  );
  return roles.map((r) => ({
    type: 'role' as const,
    name: r.name,
    uuid: null,
    id: r.name,
    data: {
      description: r.description,
      permissions: [...r.permissions].sort(),
      ...(rules.get(r.name)?.length ? { rules: rules.get(r.name) } : {}),
    },
    protectedReason: r.name === 'admin' ? 'the admin role cannot be deleted' : held.has(r.name) ? `users hold the role '${r.name}'` : null,
  }));
}

/**
 * A file's rules checked against the content model as it is when the role is applied (collections are applied before
 * roles, so a collection the same plan creates is known): a rule naming a collection, field or locale the target lacks
 * stops the apply with the rule's problem (the engine rolls the plan back), as the roles routes refuse it.
 */
async function checkRules(kit: RoleAdapterKit, tenantId: string, name: string, data: Record<string, unknown>): Promise<void> {
  const rules = Array.isArray(data.rules) ? (data.rules as AccessRule[]) : [];
  const checks = optional(kit.cradle(), 'accessRuleChecks');
  if (!rules.length || !checks) return;
  try {
    await checks.check(tenantId, rules);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(
      `The role '${name}' cannot be applied here: ${err.message.replace(/body\.rules/g, 'data.rules')}`,
      err.issues.map((d) => ({ ...d, path: `role.${name}.${d.path.replace(/^body\./, 'data.')}` })),
    );
  }
}

/** Roles, their permissions and their rules (role-rules.ts: `rules` only in the files of roles that have some). */
export function roleAdapter(kit: RoleAdapterKit): ResourceAdapter {
  const { cradle, model } = kit;
  return {
    type: 'role',
    label: 'Roles, their permissions and rules',
    readOnlyReason: null,
    available: () => true,
    read: (tenantId) => readRoles(kit, tenantId),
    check(data) {
      if (!isObject(data) || typeof data.description !== 'string' || data.description.length > 255)
        return 'data must be {description (at most 255 characters), permissions[]}';
      if (!Array.isArray(data.permissions) || !data.permissions.every((p) => typeof p === 'string'))
        return 'data.permissions must be an array of permission names';
      return rulesProblem(data.rules);
    },
    async create(tenantId, name, _uuid, data, t) {
      await checkRules(kit, tenantId, name, data);
      await model('Role').create({ tenant_id: tenantId, ...columns(name, data) }, { transaction: t });
      return name;
    },
    async update(tenantId, current, name, data, t) {
      await checkRules(kit, tenantId, name, data);
      await model('Role').update(columns(name, data), { where: { tenant_id: tenantId, name: current.name }, transaction: t });
      // A promoted rename (matched by syncId or external id) carries the users holding the role along.
      if (name !== current.name)
        await model('User').update({ role: name }, { where: { tenant_id: tenantId, role: current.name }, transaction: t });
      return name;
    },
    async remove(tenantId, current, t) {
      await model('Role').destroy({ where: { tenant_id: tenantId, name: current.name }, transaction: t });
    },
    async invalidate(tenantId, names) {
      // Sessions and API keys / website tokens cache their role's permissions: drop the cached copies of
      // every user holding a changed role.
      const sessions = optional(cradle(), 'sessions');
      const tokens = optional(cradle(), 'tokens');
      // The rules of a role are kept per role on every instance (auth's followed copies): dropped by ROLE_CHANGED.
      for (const role of names) await cradle().events.publish(ROLE_CHANGED, { tenantId, role });
      if ((!sessions && !tokens) || !names.length) return;
      const users = await model('User').findAll({ where: { tenant_id: tenantId, role: { [Op.in]: names } }, attributes: ['id'] });
      for (const u of users) {
        await sessions?.forgetUser(String((u as any).id));
        await tokens?.userChanged(String((u as any).id));
      }
    },
  };
}

import { z } from 'zod';
import {
  ConflictError,
  NotFoundError,
  ValidationError,
  defineRoute,
  optional,
  type AccessRule,
  type RouteContext,
  type RouteDefinition,
} from '../../kernel/sdk.js';
import type {} from '../content/public.js';
import { auditAuth } from './audit-events.js';
import { assertCanGrant } from './guards.js';
import { CONTENT_ACTIONS, explainRole } from './role-explain.js';
import type { RoleView } from './user-roles.js';

/**
 * A rule of a role (API decisions, "Roles and rules"; evaluated by kernel/access-rules.ts). Validated for its
 * shape here, and against the collections, fields, filter and locales by the content plugin (rule-checks.ts).
 */
const rule = z
  .object({
    action: z.enum(CONTENT_ACTIONS),
    collection: z.string().min(1).max(64),
    fields: z.array(z.string().min(1).max(64)).max(200).optional(),
    where: z.record(z.string(), z.unknown()).optional(),
    locales: z.array(z.string().min(1).max(35)).max(100).optional(),
  })
  .strict()
  .meta({ id: 'RoleRule' });
const rules = z
  .array(rule)
  .max(100)
  .optional()
  .describe(
    'Rules per collection and action: fields, where ("$user" is the caller) and locales. A rule names a collection and an action, and its rules then decide that pair',
  );
const roleName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]*$/, 'letters, digits, spaces, dot, dash and underscore; starting with a letter or digit');
const description = z.string().trim().max(255);
const permissions = z.array(z.string().min(1).max(128)).max(200);
/** Names the kernel gives identities of its own (bearer-cache.ts): no role may take them. */
const RESERVED = new Set(['api-key', 'website-token']);

const roleView = z
  .object({
    _id: z.string(),
    name: z.string(),
    description: z.string(),
    builtIn: z.boolean().describe('admin, editor, viewer, guest: never deleted or renamed'),
    permissions: z.array(z.string()),
    rules: z.array(rule),
  })
  .meta({ id: 'RoleView' });
const idParam = { params: z.object({ id: z.string().min(1).max(36) }) };

const RULES_NOTE =
  'Rules: each names a collection (or *) and an action (read, create, update, delete, publish), with fields, where and locales; an unknown collection, field or locale or a bad filter is 400 VALIDATION_ERROR naming the rule. The admin role takes no rules (it passes every check).';

/** The rules as stored: checked against the content model (400 naming the rule), the admin role takes none. */
async function checkedRules(
  route: RouteContext,
  role: string,
  list: AccessRule[] | undefined,
  current: AccessRule[],
): Promise<AccessRule[]> {
  if (list === undefined) return current;
  if (list.length && role === 'admin')
    throw new ValidationError('The admin role passes every check; it takes no rules', [
      { path: 'body.rules', message: 'the admin role takes no rules' },
    ]);
  await optional(route.scope, 'accessRuleChecks')?.check(route.identity.tenantId, list);
  return list;
}

/**
 * The deciding rules checked against the content model as it is now (a field removed since the role was saved): a
 * `where` that no longer fits matches no entry (content's entry-access.ts fails closed), so the admin is told.
 */
async function ruleModelNotes(scope: RouteContext['scope'], tenantId: string, rules: AccessRule[]): Promise<string[]> {
  const checks = optional(scope, 'accessRuleChecks');
  if (!rules.length || !checks) return [];
  try {
    await checks.check(tenantId, rules);
    return [];
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const named = (path: string) => {
      const [, index, part] = /^body\.rules\.(\d+)\.?(\w*)/.exec(path) ?? [];
      const r = rules[Number(index)];
      return r ? `the ${r.action} rule on '${r.collection}'${part ? ` (${part})` : ''}` : path;
    };
    const problems = err.issues.map((i) => `${named(i.path)}: ${i.message}`).join('; ');
    return [`A rule no longer fits the content model (${problems}): a where that does not fit matches no entry until the rule is fixed.`];
  }
}

/** What changed between two lists of rules, as the audit entry and the promotion plan say it. */
export function ruleDiff(before: AccessRule[], after: AccessRule[]): { added: AccessRule[]; removed: AccessRule[] } {
  const text = (r: AccessRule) => JSON.stringify(r);
  const had = new Set(before.map(text));
  const has = new Set(after.map(text));
  return { added: after.filter((r) => !had.has(text(r))), removed: before.filter((r) => !has.has(text(r))) };
}

/** A rule in words for audit messages: "update posts where {...}". */
const ruleWords = (r: AccessRule) =>
  `${r.action} ${r.collection}${r.fields ? ` fields ${r.fields.join(',')}` : ''}${r.where ? ` where ${JSON.stringify(r.where)}` : ''}${r.locales ? ` locales ${r.locales.join(',')}` : ''}`;

/**
 * The permissions of a role: each one the instance knows (kernel and enabled plugins), or such a one's
 * grant for one resource (`content:read:<collection>`, the public-access grant of the guest role);
 * duplicates dropped, order kept.
 */
function knownPermissions(route: RouteContext, list: string[]): string[] {
  const known = (p: string) => route.scope.registries.permissions.has(p);
  const unknown = list.filter(
    (p) => !known(p) && !(/^[a-z]+:[a-z]+:[A-Za-z0-9_-]{1,64}$/.test(p) && known(p.split(':').slice(0, 2).join(':'))),
  );
  if (unknown.length)
    throw new ValidationError(
      `Unknown permission${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}`,
      unknown.map((p) => ({ path: 'body.permissions', message: `unknown permission ${p}` })),
    );
  return [...new Set(list)];
}

async function findRole(route: RouteContext, id: string): Promise<RoleView> {
  const role = await route.scope.users.roleById(route.identity.tenantId, id);
  if (!role) throw new NotFoundError(`Role '${id}' not found`);
  return role;
}

const target = (role: RoleView) => ({ type: 'role', id: role._id, name: role.name });

/**
 * Roles administration (API decisions, "Roles and rules"), per tenant, all with `user:manage` (those who
 * give users their roles see what the roles allow). Nobody grants permissions they lack (only admins touch
 * the admin role); every change is audited and applies to every session, API key and website token acting
 * with the role, on every instance, before the answer.
 */
export const roleRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/roles',
    permission: 'user:manage',
    tags: ['roles'],
    summary: "The tenant's roles: built-in first, then by name, with their permissions and rules",
    request: {},
    response: z.array(roleView),
    handler: ({ identity, scope }) => scope.users.roleViews(identity.tenantId),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/roles/:id',
    permission: 'user:manage',
    tags: ['roles'],
    summary: 'One role of the tenant',
    request: idParam,
    response: roleView,
    handler: (route) => findRole(route, route.params.id),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/roles',
    permission: 'user:manage',
    status: 201,
    tags: ['roles'],
    summary: 'Adds a role with permissions you hold (a name already taken: 409 CONFLICT)',
    description: `Unknown permissions: 400 VALIDATION_ERROR; a permission you do not hold: 403 FORBIDDEN. ${RULES_NOTE}`,
    request: {
      body: z.object({ name: roleName, description: description.optional(), permissions: permissions.optional(), rules }),
    },
    response: roleView,
    async handler(route) {
      const { body, identity, scope, ctx } = route;
      if (RESERVED.has(body.name.toLowerCase()))
        throw new ValidationError(`'${body.name}' is reserved`, [{ path: 'body.name', message: 'reserved name' }]);
      const granted = knownPermissions(route, body.permissions ?? []);
      assertCanGrant(identity, body.name, granted);
      const ruleList = await checkedRules(route, body.name, body.rules, []);
      const created = await scope.users.createRole(identity.tenantId, {
        name: body.name,
        description: body.description ?? '',
        permissions: granted,
        rules: ruleList,
      });
      await auditAuth(ctx, {
        action: 'auth.role.created',
        level: 'high',
        message: `Role '${created.name}' created with ${granted.length ? granted.join(', ') : 'no permissions'}${
          ruleList.length ? `; rules: ${ruleList.map(ruleWords).join('; ')}` : ''
        }`,
        target: target(created),
        details: { name: created.name, permissions: granted, rules: ruleList },
      });
      return created;
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/roles/:id',
    permission: 'user:manage',
    tags: ['roles'],
    summary:
      "Changes a role's name, description or permissions; its holders act with the change from their next request, on every instance",
    description: `A built-in role keeps its name, and the admin role its permissions (it passes every check): 409 CONFLICT. Unknown permissions: 400 VALIDATION_ERROR; a permission you do not hold, before or after: 403 FORBIDDEN. A rename renames every holder's role. ${RULES_NOTE}`,
    request: {
      ...idParam,
      body: z.object({ name: roleName.optional(), description: description.optional(), permissions: permissions.optional(), rules }),
    },
    response: roleView,
    async handler(route) {
      const { body, identity, scope, ctx, params } = route;
      const current = await findRole(route, params.id);
      const name = body.name ?? current.name;
      if (name !== current.name && current.builtIn) throw new ConflictError(`'${current.name}' is a built-in role and cannot be renamed`);
      if (name !== current.name && RESERVED.has(name.toLowerCase()))
        throw new ValidationError(`'${name}' is reserved`, [{ path: 'body.name', message: 'reserved name' }]);
      const next = body.permissions ? knownPermissions(route, body.permissions) : current.permissions;
      const changesPermissions = next.length !== current.permissions.length || next.some((p, i) => p !== current.permissions[i]);
      if (current.name === 'admin' && changesPermissions)
        throw new ConflictError('The admin role passes every permission check; its permissions cannot be edited');
      assertCanGrant(identity, current.name, current.permissions);
      assertCanGrant(identity, name, next);
      const ruleList = await checkedRules(route, current.name, body.rules, current.rules);
      const updated = await scope.users.updateRole(identity.tenantId, current, {
        name,
        description: body.description ?? current.description,
        permissions: next,
        rules: ruleList,
      });
      const added = next.filter((p) => !current.permissions.includes(p));
      const removed = current.permissions.filter((p) => !next.includes(p));
      const rulesChanged = ruleDiff(current.rules, ruleList);
      await auditAuth(ctx, {
        action: 'auth.role.updated',
        level: 'high',
        message: `Role '${current.name}' changed${name !== current.name ? `, renamed to '${name}'` : ''}${added.length ? `; added ${added.join(', ')}` : ''}${
          removed.length ? `; removed ${removed.join(', ')}` : ''
        }${rulesChanged.added.length ? `; rules added: ${rulesChanged.added.map(ruleWords).join('; ')}` : ''}${
          rulesChanged.removed.length ? `; rules removed: ${rulesChanged.removed.map(ruleWords).join('; ')}` : ''
        }`,
        target: target(updated),
        details: {
          from: { name: current.name, permissions: current.permissions, rules: current.rules },
          to: { name, permissions: next, rules: ruleList },
          added,
          removed,
          rulesAdded: rulesChanged.added,
          rulesRemoved: rulesChanged.removed,
        },
      });
      return updated;
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/roles/:id',
    permission: 'user:manage',
    tags: ['roles'],
    summary: 'Deletes a custom role nobody holds (a built-in role, or one still held by users: 409 CONFLICT)',
    request: idParam,
    response: z.object({ deleted: z.boolean() }),
    async handler(route) {
      const { identity, scope, ctx, params } = route;
      const current = await findRole(route, params.id);
      assertCanGrant(identity, current.name, current.permissions);
      await scope.users.deleteRole(identity.tenantId, current);
      await auditAuth(ctx, {
        action: 'auth.role.deleted',
        level: 'high',
        message: `Role '${current.name}' deleted`,
        target: target(current),
        details: { name: current.name, permissions: current.permissions },
      });
      return { deleted: true };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/roles/:id/explain',
    permission: 'user:manage',
    tags: ['roles'],
    summary: 'Whether the role may read, create, update, delete or publish entries of a collection, and which permission decides',
    description:
      'Mirrors the checks of the content routes: a rule of the role for the collection (or *) and action decides that pair (allowed, with its fields, where and locales, listed in `rules`); without one, read needs content:read (or content:read:<collection>; without content:write only published entries), the other actions content:write. The collection is not looked up.',
    request: {
      ...idParam,
      query: z.object({ collection: z.string().min(1).max(64), action: z.enum(CONTENT_ACTIONS) }),
    },
    response: z.object({
      role: z.string(),
      collection: z.string(),
      action: z.enum(CONTENT_ACTIONS),
      allowed: z.boolean(),
      permission: z.string(),
      grantedBy: z.string().nullable(),
      publishedOnly: z.boolean(),
      reason: z.string(),
      rules: z.array(rule).describe('The rules that decide (empty: the permission strings decide)'),
      notes: z
        .array(z.string())
        .describe(
          'What else decides the action, in words: a review stage publishing needs, or a rule that no longer fits the content model',
        ),
    }),
    async handler(route) {
      const role = await findRole(route, route.params.id);
      const { collection, action } = route.query;
      const explained = explainRole(role, collection, action);
      const tenantId = route.identity.tenantId;
      const notes = [
        ...(await ruleModelNotes(route.scope, tenantId, explained.rules)),
        ...((await optional(route.scope, 'explainNotes')?.notes(tenantId, { role: role.name, collection, action })) ?? []),
      ];
      return { ...explained, notes, reason: notes.length ? `${explained.reason} ${notes.join(' ')}` : explained.reason };
    },
  }),
];

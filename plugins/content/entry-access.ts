/**
 * The rules of roles applied to entries (API decisions, "Roles and rules"; the evaluator is
 * kernel/access-rules.ts). Every read and write of entries asks here: lists and counts keep to the rule's
 * `where` (in SQL, so pages and totals are right), single reads of other entries are 404, writes of them
 * 403; `fields` leaves other fields out of answers (reads) or refuses them (writes, 403 FIELD_FORBIDDEN);
 * `locales` keeps reads and writes to those locales (403 LOCALE_FORBIDDEN).
 */
import { Op, type Transaction, type WhereOptions } from 'sequelize';
import {
  defineError,
  ForbiddenError,
  hasPermission,
  hasScopedPermission,
  ruleLimits,
  scopeAllows,
  ValidationError,
  type Identity,
  type RuleAction,
  type RuleLimits,
} from '../../kernel/sdk.js';
import type { CollectionDefinition } from './collection-schema.js';
import type { LoadedCollection } from './collections-service.js';
import type { Entry } from './entry-shape.js';
import { filterObjectWhere, type FilterScope, type FilterTarget, type PathRules } from './list-filter.js';

export class FieldForbiddenError extends defineError(
  'FIELD_FORBIDDEN',
  403,
  "A rule of the caller's role does not let it write (or filter, sort or search by) this field.",
  (collection: string, fields: string[]) => ({
    message: `Your role may not ${fields.length === 1 ? 'use the field' : 'use the fields'} ${fields.map((f) => `'${f}'`).join(', ')} of '${collection}'`,
    extra: { fields },
  }),
) {}

export class LocaleForbiddenError extends defineError(
  'LOCALE_FORBIDDEN',
  403,
  "A rule of the caller's role keeps it to other locales.",
  (collection: string, locale: string, allowed: readonly string[]) => ({
    message: `Your role may not use the locale '${locale}' in '${collection}' (allowed: ${allowed.join(', ')})`,
    extra: { locale, allowed: [...allowed] },
  }),
) {}

/** Keys every entry keeps whatever a `fields` rule names: its id, its system fields and the answer's own keys (`_locale`...). */
const SYSTEM_KEYS = new Set(['slug', 'status', 'syncId', 'version', 'createdAt', 'updatedAt', 'createdBy', 'updatedBy', 'hasDraft']);
const kept = (key: string, fields: ReadonlySet<string>) => key.startsWith('_') || SYSTEM_KEYS.has(key) || fields.has(key);

/** The permission strings alone (a rule grants only its own pair). */
function byStrings(identity: Identity, collection: string, action: RuleAction): boolean {
  const permission = action === 'read' ? 'content:read' : 'content:write';
  return hasPermission(identity, permission) || identity.permissions.includes(`${permission}:${collection}`);
}

/**
 * The limits of `action` on `collection` for the caller: null when its role has no rule for the pair (the
 * permission strings decide, as the routes checked); 403 FORBIDDEN when neither a rule nor a permission allows it.
 */
export function limitsFor(identity: Identity, collection: string, action: RuleAction): RuleLimits | null {
  if (!scopeAllows(identity, collection, [action]))
    throw new ForbiddenError(`This API key's scope does not include ${action} in '${collection}'`);
  const limits = ruleLimits(identity, collection, action);
  if (limits) return limits;
  if (!byStrings(identity, collection, action))
    throw new ForbiddenError(
      `Your role may not ${action} entries of '${collection}' (${action === 'read' ? 'content:read' : 'content:write'} or a rule for it is needed)`,
    );
  return null;
}

/** Whether the caller may do `action` on the collection at all (a rule or a permission); never throws. */
export function mayAct(identity: Identity, collection: string, action: RuleAction): boolean {
  if (!scopeAllows(identity, collection, [action])) return false;
  return ruleLimits(identity, collection, action) !== null || byStrings(identity, collection, action);
}

/** The entry without the fields a read rule leaves out (a copy; the same entry without a `fields` limit). */
export function visibleFields<E extends Entry>(entry: E, limits: RuleLimits | null): E {
  const fields = limits?.fields;
  if (!fields) return entry;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(entry)) if (kept(key, fields)) out[key] = entry[key];
  return out as E;
}

/** A write's answer as the caller may read it: without the fields its read rule hides (no rule: as is; never throws). */
export function answerFor<E extends Entry>(name: string, entry: E, identity: Identity): E {
  return visibleFields(entry, ruleLimits(identity, name, 'read'));
}

/** Every entry of the list without the fields a read rule leaves out, in place. */
export function hideFields(entries: Entry[], limits: RuleLimits | null): void {
  if (!limits?.fields) return;
  for (let i = 0; i < entries.length; i++) entries[i] = visibleFields(entries[i]!, limits);
}

/** A write naming a field its rule does not list: 403 FIELD_FORBIDDEN (system keys sent back unchanged are ignored, as writes ignore them). */
export function assertWritableFields(c: CollectionDefinition, body: unknown, limits: RuleLimits | null): void {
  const fields = limits?.fields;
  if (!fields || body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const known = new Set(c.fields.map((f) => f.name));
  const refused = Object.keys(body).filter((k) => known.has(k) && !fields.has(k));
  if (refused.length) throw new FieldForbiddenError(c.name, refused);
}

/** The field names a list filter uses (the first segment of each path, in every group). */
function filterFields(raw: unknown, out: Set<string>, depth = 0): void {
  if (depth > 8 || raw === null || typeof raw !== 'object') return;
  if (Array.isArray(raw)) {
    for (const item of raw) filterFields(item, out, depth + 1);
    return;
  }
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key.startsWith('$')) filterFields(value, out, depth + 1);
    else out.add(key.split('.')[0]!);
  }
}

/**
 * A list query that filters or sorts by a field its read rule hides is refused (403 FIELD_FORBIDDEN): the
 * answers would tell what the hidden field holds. Search looks only in the visible fields (searchedBy).
 */
export function assertQueryFields(c: CollectionDefinition, query: { filter?: string; sort?: string }, limits: RuleLimits | null): void {
  const fields = limits?.fields;
  if (!fields) return;
  const used = new Set<string>();
  if (query.filter) {
    try {
      filterFields(JSON.parse(query.filter), used);
    } catch {
      // Not JSON: the filter's own parser answers 400.
    }
  }
  for (const part of (query.sort ?? '').split(',')) {
    const name = part.trim().replace(/^-/, '').split(':')[0]!;
    if (name) used.add(name);
  }
  const known = new Set(c.fields.map((f) => f.name));
  const refused = [...used].filter((n) => known.has(n) && !fields.has(n));
  if (refused.length) throw new FieldForbiddenError(c.name, refused);
}

/** A locale the rule does not list: 403 LOCALE_FORBIDDEN (`*`, every locale, is refused unless the rule has no limit). */
export function assertLocale(collection: string, locale: string | undefined, defaultCode: string, limits: RuleLimits | null): void {
  const allowed = limits?.locales;
  if (!allowed) return;
  const code = locale ?? defaultCode;
  if (!allowed.includes(code)) throw new LocaleForbiddenError(collection, code, allowed);
}

/**
 * The SQL of a rule's `where` in this collection, or null without one (checked when the role was saved; the filter's
 * own limits apply). A `where` the collection no longer answers (a field it named was removed since) matches nothing:
 * a rule fails closed, and explain says why.
 */
export function ruleWhere(c: CollectionDefinition, limits: RuleLimits | null, scope: FilterScope): WhereOptions | null {
  if (!limits?.where) return null;
  try {
    return filterObjectWhere(c, limits.where, scope);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return { id: { [Op.is]: null } };
  }
}

/**
 * The caller's read rules on the collections a filter's relation paths step into (FilterScope.rules): a path through
 * a field the rule hides is 403 FIELD_FORBIDDEN, and the entries it matches are those the rule lets the caller read
 * (a rule's own `where` is the admin's, so it is read without these). Undefined for a caller without rules.
 */
export function pathRules(identity: Identity, scope: FilterScope): PathRules | undefined {
  if (!identity.rules?.length) return undefined;
  return {
    field(collection, field) {
      const fields = ruleLimits(identity, collection, 'read')?.fields;
      if (fields && !kept(field, fields)) throw new FieldForbiddenError(collection, [field]);
    },
    where: (target) => ruleWhere(target, ruleLimits(identity, target.name, 'read'), scope),
  };
}

/** The ids of these entries that meet the rule's `where` (all of them without one), one query. */
export async function meetingWhere(
  c: LoadedCollection,
  ids: string[],
  limits: RuleLimits | null,
  scope: FilterScope,
  transaction?: Transaction,
): Promise<Set<string>> {
  const where = ruleWhere(c, limits, scope);
  if (!where || !ids.length) return new Set(ids);
  const rows = (await c.model.findAll({
    attributes: ['id'],
    where: { [Op.and]: [{ id: { [Op.in]: ids }, tenant_id: scope.tenantId }, where] },
    transaction,
    raw: true,
  })) as unknown as Array<{ id: string }>;
  return new Set(rows.map((r) => String(r.id)));
}

/** The actions a write is: `update` when it changes values, `publish` when it changes the status (API decisions, "Roles and rules"). */
export function writeActions(body: unknown, creating: boolean): RuleAction[] {
  const keys = body !== null && typeof body === 'object' ? Object.keys(body) : [];
  const status = keys.includes('status') ? (body as { status?: unknown }).status : undefined;
  if (creating) return status === 'published' ? ['create', 'publish'] : ['create'];
  const values = keys.some((k) => k !== 'status' && k !== 'version');
  return [...(values || status === undefined ? (['update'] as const) : []), ...(status !== undefined ? (['publish'] as const) : [])];
}

/**
 * The caller's rules for a write: 403 FORBIDDEN without a rule or permission for each action, 403 FIELD_FORBIDDEN
 * for a field its rule does not list, 403 LOCALE_FORBIDDEN for another locale, all before anything is read. Returns
 * the check of the rules' `where` on entries (run inside the write's transaction; an entry outside it: 403).
 */
export function writeAccess(
  c: LoadedCollection,
  identity: Identity,
  actions: RuleAction[],
  body: unknown,
  locale: string | undefined,
  at: { defaultCode: string; lookup: (name: string) => FilterTarget | undefined; dialect: string },
): (ids: string[], transaction?: Transaction) => Promise<void> {
  const all = actions.map((action) => ({ action, limits: limitsFor(identity, c.name, action) }));
  for (const { limits } of all) {
    assertWritableFields(c, body, limits);
    assertLocale(c.name, locale === '*' ? undefined : locale, at.defaultCode, limits);
  }
  const scope: FilterScope = {
    tenantId: identity.tenantId,
    lookup: at.lookup,
    readable: (n) => hasScopedPermission(identity, 'content:read', n),
    dialect: at.dialect,
  };
  return async (ids, transaction) => {
    for (const { action, limits } of all) {
      if (!limits?.where) continue;
      const meet = await meetingWhere(c, ids, limits, scope, transaction);
      const outside = ids.filter((id) => !meet.has(id));
      if (outside.length)
        throw new ForbiddenError(
          `A rule of your role does not let you ${action} ${outside.length === 1 ? `the entry '${outside[0]}'` : `${outside.length} of these entries`} of '${c.name}'`,
        );
    }
  };
}

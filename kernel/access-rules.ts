/**
 * Rules of roles (API decisions, "Roles and rules"): the one evaluator every surface that reads or
 * writes entries asks (REST, GraphQL, the in-process client, subscriptions, populate, search, the
 * dashboard). Pure: it reads only the identity, which carries its role's rules (the auth plugin puts
 * them there when it resolves the identity, and drops its copy when the role changes on any instance).
 *
 * When a role has a rule for a collection (or `*`) and an action, its rules decide that pair: the pair is
 * allowed, limited by the rules' `fields`, `where` and `locales`. Several rules for one pair allow what
 * any of them allows: the union of their fields, any of their conditions, the union of their locales
 * (a rule without one of them sets no limit there). Pairs without rules follow the permission strings.
 * The admin role passes every check, rules included.
 */
export const RULE_ACTIONS = ['read', 'create', 'update', 'delete', 'publish'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

export interface AccessRule {
  action: RuleAction;
  /** A collection's name, or `*` for every collection. */
  collection: string;
  /** The fields read or written; `_id` and the system fields (slug, status, version, dates, authors) always stay. */
  fields?: string[];
  /** A list filter (the `filter` parameter's JSON); the string "$user" stands for the caller's user id. */
  where?: Record<string, unknown>;
  /** The locales read or written. */
  locales?: string[];
}

/** What the rules of one collection and action allow: null in a field means "no limit there". */
export interface RuleLimits {
  /** The fields that may be read or written (besides `_id` and the system fields), or null for all. */
  fields: ReadonlySet<string> | null;
  /** The condition entries must meet, `$user` already replaced by the caller's id, or null for all entries. */
  where: Record<string, unknown> | null;
  /** The locales that may be read or written, or null for all. */
  locales: readonly string[] | null;
  /** The rules that decided. */
  rules: readonly AccessRule[];
}

/** Stands for the caller's user id inside `where`. */
export const RULE_USER = '$user';

/**
 * A caller without a user id (a guest) meets no `$user` condition: this value is no user's id (ids are
 * UUIDs) and equals no stored creator, so `{createdBy: "$user"}` matches nothing for it.
 */
const NO_USER = 'no-user';

function withUser(value: unknown, userId: string): unknown {
  if (value === RULE_USER) return userId;
  if (Array.isArray(value)) return value.map((v) => withUser(v, userId));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, withUser(v, userId)]));
  return value;
}

/** The identity's rules for this collection and action, or an empty list. */
export function rulesOf(identity: { role: string; rules?: readonly AccessRule[] }, collection: string, action: RuleAction): AccessRule[] {
  if (identity.role === 'admin' || !identity.rules?.length) return [];
  return identity.rules.filter((r) => r.action === action && (r.collection === collection || r.collection === '*'));
}

/**
 * The limits the identity's rules set on `action` in `collection`, or null when no rule names the pair
 * (then the permission strings decide, as without rules).
 */
export function ruleLimits(
  identity: { role: string; userId: string | null; rules?: readonly AccessRule[] },
  collection: string,
  action: RuleAction,
): RuleLimits | null {
  const rules = rulesOf(identity, collection, action);
  if (!rules.length) return null;
  const all = <T>(pick: (r: AccessRule) => T | undefined): T[] | null => {
    const values = rules.map(pick);
    return values.some((v) => v === undefined) ? null : (values as T[]);
  };
  const fields = all((r) => r.fields);
  const wheres = all((r) => r.where);
  const locales = all((r) => r.locales);
  const user = identity.userId ?? NO_USER;
  return {
    fields: fields ? new Set(fields.flat()) : null,
    where: wheres ? (withUser(wheres.length === 1 ? wheres[0]! : { $or: wheres }, user) as Record<string, unknown>) : null,
    locales: locales ? [...new Set(locales.flat())] : null,
    rules,
  };
}

/** Whether any rule of the identity names the collection with one of these actions (a rule is a grant of its pair). */
export function hasRuleFor(
  identity: { role: string; rules?: readonly AccessRule[] },
  collection: string,
  actions: readonly RuleAction[],
): boolean {
  return actions.some((a) => rulesOf(identity, collection, a).length > 0);
}

/**
 * The scope of an API key (issue 38, "narrow credentials"): the collections (or `*`) and actions it may use; a key
 * without one may use every collection its permissions allow. A scope only narrows: the key still needs the
 * permission (`content:read` for read, `content:write` for the others) or a rule of its creator's role.
 */
export interface KeyScope {
  collection: string;
  actions: RuleAction[];
}

/** Whether the identity's key scope (if it has one) lets it do one of these actions in the collection. */
export function scopeAllows(identity: { scope?: readonly KeyScope[] }, collection: string, actions: readonly RuleAction[]): boolean {
  if (!identity.scope) return true;
  return identity.scope.some((s) => (s.collection === collection || s.collection === '*') && s.actions.some((a) => actions.includes(a)));
}

/** The write actions: content:write allows them without rules. */
export const WRITE_ACTIONS: readonly RuleAction[] = ['create', 'update', 'delete', 'publish'];

/**
 * The texts of a rule list for cache keys, per collection, kept while the list lives: the
 * identities of a role share its list (auth's copy per tenant and role), so a key costs a lookup, not a stringify.
 */
const KEY_TEXTS = new WeakMap<readonly AccessRule[], Map<string, string>>();

function rulesText(rules: readonly AccessRule[], collection: string): string {
  let texts = KEY_TEXTS.get(rules);
  if (!texts) KEY_TEXTS.set(rules, (texts = new Map()));
  let text = texts.get(collection);
  if (text === undefined) {
    // One text per collection asked for: callers ask only for collections that exist, so the map is bounded by them.
    const mine = rules.filter((r) => r.collection === collection || r.collection === '*');
    text = mine.length ? JSON.stringify(mine) : '';
    texts.set(collection, text);
  }
  return text;
}

const keyedByUser = (text: string, userId: string | null) => (text.includes(`"${RULE_USER}"`) ? `${text}|${userId ?? NO_USER}` : text);

/**
 * A short stable text of the identity's rules for a collection (every action), for cache keys: callers
 * whose rules differ never share a cached answer; `$user` rules add the user's id.
 */
export function rulesKey(identity: { role: string; userId: string | null; rules?: readonly AccessRule[] }, collection: string): string {
  if (identity.role === 'admin' || !identity.rules?.length) return '';
  const text = rulesText(identity.rules, collection);
  return text ? keyedByUser(text, identity.userId) : '';
}

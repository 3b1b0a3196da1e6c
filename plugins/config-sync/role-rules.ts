/**
 * The rules of roles in configuration promotion (API decisions, "Roles and rules"): a role's file carries
 * `rules` (only when it has some, so the files and checksums of roles without rules stay as they were), the
 * file's rules are checked for their shape, and a plan's role operations say which rules and permissions
 * they add and remove (`changes`), as a reviewer reads them before applying.
 */
import { stringify } from 'safe-stable-stringify';
import { RULE_ACTIONS, type AccessRule } from '../../kernel/sdk.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const RULE_KEYS = new Set(['action', 'collection', 'fields', 'where', 'locales']);
const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The rules of an auth_roles row (JSON text of a list, or null): a list, empty when none or unreadable. */
export function rulesOfColumn(text: unknown): AccessRule[] {
  if (typeof text !== 'string' || !text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as AccessRule[]) : [];
  } catch {
    return [];
  }
}

/** The column's value for these rules: null without any (as the roles routes store them). */
export const rulesColumn = (rules: unknown): string | null => (Array.isArray(rules) && rules.length ? JSON.stringify(rules) : null);

/** What is wrong with a file's `rules` (absent is none), or null. The content model is checked when the role is used or saved by the routes. */
export function rulesProblem(rules: unknown): string | null {
  if (rules === undefined) return null;
  if (!Array.isArray(rules) || rules.length > 100) return 'data.rules must be an array of at most 100 rules';
  for (const [i, r] of rules.entries()) {
    const at = `data.rules.${i}`;
    if (!isObject(r) || Object.keys(r).some((k) => !RULE_KEYS.has(k)))
      return `${at} must be {action, collection, fields?, where?, locales?}`;
    if (!(RULE_ACTIONS as readonly string[]).includes(String(r.action))) return `${at}.action must be one of ${RULE_ACTIONS.join(', ')}`;
    if (typeof r.collection !== 'string' || !r.collection) return `${at}.collection must be a collection's name or *`;
    if (r.fields !== undefined && !strings(r.fields)) return `${at}.fields must be an array of field names`;
    if (r.locales !== undefined && !strings(r.locales)) return `${at}.locales must be an array of locale codes`;
    if (r.where !== undefined && !isObject(r.where)) return `${at}.where must be a filter object`;
  }
  return null;
}

/** The items of `next` not in `prev` and of `prev` not in `next`, compared as canonical JSON. */
function delta<T>(prev: T[], next: T[]): { added: T[]; removed: T[] } {
  const key = (v: T) => stringify(v) ?? '';
  const before = new Set(prev.map(key));
  const after = new Set(next.map(key));
  return { added: next.filter((v) => !before.has(key(v))), removed: prev.filter((v) => !after.has(key(v))) };
}

export type RoleChanges = {
  permissions: { added: string[]; removed: string[] };
  rules: { added: AccessRule[]; removed: AccessRule[] };
};

/** What a role operation changes: the database's role (`from`, none for a create) to the file's (`to`, none for a delete). */
export function roleChanges(from: Record<string, unknown> | undefined, to: Record<string, unknown> | undefined): RoleChanges {
  const list = <T>(data: Record<string, unknown> | undefined, key: string) => (Array.isArray(data?.[key]) ? (data[key] as T[]) : []);
  return {
    permissions: delta(list<string>(from, 'permissions'), list<string>(to, 'permissions')),
    rules: delta(list<AccessRule>(from, 'rules'), list<AccessRule>(to, 'rules')),
  };
}

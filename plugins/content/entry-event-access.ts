/**
 * The rules of roles applied to entry events handed to a subscriber as they happen (GraphQL subscriptions;
 * API decisions, "Roles and rules"): the entry as the subscriber's read rule lets it see it, or nothing.
 * An entry that still exists is checked against the rule's `where` in the database (meetingWhere, the SQL
 * lists use, so a subscriber is told of exactly the entries its lists show); a deleted entry, no longer
 * there, against the values it had (ruleMatches: anything that cannot be decided from them, such as a
 * relation path, counts as not met, so no deletion of an entry the subscriber could not see leaks).
 */
import { ruleLimits, type Identity, type RuleLimits } from '../../kernel/sdk.js';
import type { LoadedCollection } from './collections-service.js';
import { meetingWhere, visibleFields } from './entry-access.js';
import type { Entry } from './entry-shape.js';
import type { FilterScope } from './list-filter.js';

type Verdict = boolean | null;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const scalar = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

function all(verdicts: Verdict[]): Verdict {
  if (verdicts.includes(false)) return false;
  return verdicts.includes(null) ? null : true;
}
function any(verdicts: Verdict[]): Verdict {
  if (verdicts.includes(true)) return true;
  return verdicts.includes(null) ? null : false;
}

function compare(have: unknown, op: string, want: unknown): Verdict {
  const value = have === undefined ? null : have;
  if (!scalar(value)) return null;
  switch (op) {
    case 'eq':
      return scalar(want) ? value === want : null;
    case 'ne':
      return scalar(want) ? value !== want : null;
    case 'in':
    case 'nin':
      if (!Array.isArray(want) || !want.every(scalar)) return null;
      return want.includes(value) === (op === 'in');
    case 'null':
      return typeof want === 'boolean' ? (value === null) === want : null;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (value === null || typeof value !== typeof want || (typeof want !== 'number' && typeof want !== 'string')) return null;
      const [a, b] = [value as number | string, want];
      return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : a <= b;
    }
    default:
      return null;
  }
}

function condition(entry: Entry, path: string, raw: unknown): Verdict {
  // A relation path (`author.name`) or a path into a component needs the database.
  if (path.includes('.') || !Object.hasOwn(entry, path)) return null;
  const have = entry[path];
  if (!isObject(raw)) return compare(have, 'eq', raw);
  return all(Object.entries(raw).map(([op, want]) => compare(have, op, want)));
}

/** Whether the entry's values meet a rule's `where`: true, false, or null when they cannot tell. */
export function ruleMatches(entry: Entry, where: unknown, depth = 0): Verdict {
  if (!isObject(where) || depth > 8) return null;
  const verdicts: Verdict[] = [];
  for (const [key, value] of Object.entries(where)) {
    if (key === '$or' || key === '$and') {
      if (!Array.isArray(value)) return null;
      const inner = value.map((v) => ruleMatches(entry, v, depth + 1));
      verdicts.push(key === '$or' ? any(inner) : all(inner));
    } else if (key === '$not') {
      const inner = ruleMatches(entry, value, depth + 1);
      verdicts.push(inner === null ? null : !inner);
    } else if (key.startsWith('$')) return null;
    else verdicts.push(condition(entry, key, value));
  }
  return all(verdicts);
}

/** What the subscriber's read rule lets it see of one event's entry; the entry as it is without a rule. */
export async function eventEntryUnderRule(
  how: { collection: () => Promise<LoadedCollection>; scope: FilterScope; defaultLocale: string },
  name: string,
  entry: Entry,
  identity: Identity,
  gone: boolean,
): Promise<Entry | undefined> {
  const limits: RuleLimits | null = ruleLimits(identity, name, 'read');
  if (!limits) return entry;
  // Events carry the entry in the default locale: a rule keeping the caller to other locales hides them.
  if (limits.locales && !limits.locales.includes(how.defaultLocale)) return undefined;
  if (limits.where) {
    const meets = gone
      ? ruleMatches(entry, limits.where) === true
      : (await meetingWhere(await how.collection(), [entry._id], limits, how.scope)).has(entry._id);
    if (!meets) return undefined;
  }
  return visibleFields(entry, limits);
}

/**
 * The content side of saving a role's rules (API decisions, "Roles and rules"): each rule's collection
 * must exist (or be `*`), its fields must be fields of it, its `where` must be a filter of it (with
 * `"$user"` standing for a user id) and its locales must be the installation's. A problem is a 400
 * VALIDATION_ERROR naming the rule (`body.rules.<i>.<part>`), so no role is saved with a rule that could
 * not be applied. The auth plugin asks through the container (`accessRuleChecks`).
 */
import { ValidationError, type AccessRule } from '../../kernel/sdk.js';
import type { CollectionsService } from './collections-service.js';
import { filterObjectWhere } from './list-filter.js';
import type { LocalesService } from './locales-service.js';

/** A user id that stands for `$user` while a rule's filter is checked (its shape is a user id's). */
const SAMPLE_USER = '00000000-0000-4000-8000-000000000000';

const withSample = (value: unknown): unknown => {
  if (value === '$user') return SAMPLE_USER;
  if (Array.isArray(value)) return value.map(withSample);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, withSample(v)]));
  return value;
};

export interface AccessRuleChecks {
  check(tenantId: string, rules: AccessRule[]): Promise<void>;
}

export function accessRuleChecks(collections: CollectionsService, locales: LocalesService): AccessRuleChecks {
  return {
    async check(tenantId, rules) {
      const issues: Array<{ path: string; message: string }> = [];
      const known = new Set(locales.list().map((l) => l.code));
      for (const [i, rule] of rules.entries()) {
        const at = `body.rules.${i}`;
        const c = rule.collection === '*' ? undefined : collections.find(rule.collection);
        if (rule.collection !== '*' && !c) {
          issues.push({ path: `${at}.collection`, message: `no collection '${rule.collection}'` });
          continue;
        }
        if (c)
          for (const field of rule.fields ?? [])
            if (!c.fields.some((f) => f.name === field))
              issues.push({ path: `${at}.fields`, message: `'${c.name}' has no field '${field}'` });
        if (rule.where && c) {
          try {
            filterObjectWhere(c, withSample(rule.where), { tenantId, lookup: (n) => collections.find(n) });
          } catch (err) {
            if (!(err instanceof ValidationError)) throw err;
            issues.push({ path: `${at}.where`, message: err.message.replace(/^Invalid filter: /, '') });
          }
        }
        if (
          rule.where &&
          !c &&
          Object.keys(rule.where).some((k) => !['createdBy', 'updatedBy', 'status', 'slug', '$or', '$and', '$not'].includes(k))
        )
          issues.push({
            path: `${at}.where`,
            message: "a rule for '*' filters by system fields only (createdBy, updatedBy, status, slug)",
          });
        for (const code of rule.locales ?? []) if (!known.has(code)) issues.push({ path: `${at}.locales`, message: `no locale '${code}'` });
      }
      if (issues.length) throw new ValidationError(`Invalid rule: ${issues.map((p) => `${p.path}: ${p.message}`).join('; ')}`, issues);
    },
  };
}

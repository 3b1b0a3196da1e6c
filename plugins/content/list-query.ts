import { Op, Sequelize, type Order, type WhereOptions } from 'sequelize';
import { z } from 'zod';
import { listLimit } from '../../lib/http/list-limit.js';
import type { CollectionDefinition } from './collection-schema.js';
import { columnName, isList } from './field-types.js';
import { filterWhere, invalidQuery, searched, type FilterScope } from './list-filter.js';
import { fieldsParam } from './field-selection.js';
import { populateParam } from './populate.js';
import type { LocalizedColumns, LocalizedSubject } from './entry-locales.js';
import { STATUSES, type EntryStatus } from './entry-values.js';

export { STATUSES, type EntryStatus } from './entry-values.js';

/** The list query of the decisions (page, limit, sort, search, status) plus a JSON filter. */
export const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100000).default(1),
  // The decisions: limit defaults to 25 and a larger one than 100 is capped, not refused.
  limit: listLimit(),
  sort: z.string().max(200).optional(),
  search: z.string().max(200).optional(),
  status: z.enum(STATUSES).optional(),
  filter: z
    .string()
    .max(4000)
    .optional()
    .describe(
      'JSON: {"field": value} or {"field": {"eq"|"ne"|"gt"|"gte"|"lt"|"lte"|"in"|"nin"|"contains"|"startsWith"|"null": value}}, grouped with {"$or": [..]}, {"$and": [..]}, {"$not": {..}}',
    ),
  stage: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .optional()
    .describe(
      "A review stage's name (docs/features/review-stages.md): only the entries in that stage. For callers who may write the collection (else 403 FORBIDDEN); 400 VALIDATION_ERROR when the collection is in no workflow or its workflow has no such stage",
    ),
  after: z
    .string()
    .max(2000)
    .optional()
    .describe(
      "Cursor pagination: the entries after this cursor (a list answer's nextCursor; empty: from the first entry), in the list's sort. Not with page. The answer carries nextCursor and prevCursor, and page null",
    ),
  before: z
    .string()
    .min(1)
    .max(2000)
    .optional()
    .describe("Cursor pagination: the entries before this cursor (a list answer's prevCursor), in the list's sort. Not with page or after"),
  fields: fieldsParam,
  populate: populateParam,
  locale: z
    .string()
    .max(64)
    .optional()
    .describe("A locale's code (GET /api/locales): localized fields in that locale, with its fallbacks; * answers every locale's values"),
});
export type ListQuery = z.output<typeof listQuerySchema>;

const SYSTEM_SORT: Record<string, string> = { createdAt: 'created_at', updatedAt: 'updated_at', slug: 'slug', status: 'status', _id: 'id' };
const UNSORTABLE = new Set(['richtext', 'markdown', 'json', 'component', 'blocks']);

const invalid = invalidQuery;

/** `title`, `-createdAt`, `price:desc`, comma-separated; the id breaks ties so pages never overlap. */
export function orderFor(c: CollectionDefinition, sort: string | undefined, localized?: LocalizedColumns): Order {
  const parts = (sort ?? '-createdAt')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 5);
  const order: Array<[string | LocalizedSubject['lhs'], 'ASC' | 'DESC']> = [];
  for (const part of parts) {
    let name = part;
    let dir: 'ASC' | 'DESC' = 'ASC';
    if (name.startsWith('-')) [name, dir] = [name.slice(1), 'DESC'];
    const [field, suffix] = name.split(':');
    if (suffix !== undefined) {
      if (!/^(asc|desc)$/i.test(suffix)) invalid('sort', `'${part}': use field, -field or field:asc|desc`);
      dir = suffix.toUpperCase() as 'ASC' | 'DESC';
    }
    // Own keys only: 'constructor' or '__proto__' must not find Object.prototype members.
    const system = Object.hasOwn(SYSTEM_SORT, field!) ? SYSTEM_SORT[field!] : undefined;
    const def = c.fields.find((f) => f.name === field);
    if (!system && (!def || UNSORTABLE.has(def.type) || isList(def))) invalid('sort', `cannot sort by '${field}'`);
    // A localized field in a non-default locale sorts by its value there (entry-locales.ts).
    const inLocale = system ? undefined : localized?.(def!);
    if (inLocale === null) invalid('sort', `cannot sort by the localized ${def!.type} field '${field}' in a locale other than the default`);
    order.push([inLocale ? inLocale.lhs : (system ?? columnName(def!)), dir]);
  }
  if (!order.some(([col]) => col === 'id')) order.push(['id', 'ASC']);
  return order as Order;
}

/** The WHERE of a list: tenant, status, the JSON filter and the search over text fields and the slug. */
export function whereFor(
  c: CollectionDefinition,
  tenantId: string,
  query: Pick<ListQuery, 'filter' | 'search'>,
  status: EntryStatus | undefined,
  scope: Omit<FilterScope, 'tenantId'> = {},
): WhereOptions {
  const and: WhereOptions[] = [{ tenant_id: tenantId }];
  if (status) and.push({ status });
  if (query.filter) and.push(filterWhere(c, query.filter, { ...scope, tenantId }));
  const term = query.search?.trim().toLowerCase();
  if (term) {
    // In a non-default locale, a localized field is searched in its value there (entry-locales.ts).
    const subjects = [
      Sequelize.col('slug'),
      ...c.fields.filter(searched).map((f) => scope.localized?.(f)?.lhs ?? Sequelize.col(columnName(f))),
    ];
    and.push({
      [Op.or]: subjects.map((subject) => Sequelize.where(Sequelize.fn('INSTR', Sequelize.fn('LOWER', subject), term), Op.gt, 0)),
    });
  }
  return { [Op.and]: and };
}

import { Op, Sequelize, type Order, type WhereOptions } from 'sequelize';
import { z } from 'zod';
import { ValidationError } from '../../kernel/sdk.js';
import { refuseControlCharacters } from '../../kernel/http/refuse-control-characters.js';
import { listLimit } from '../../lib/http/list-limit.js';
import type { CollectionDefinition } from './collection-schema.js';
import { columnName, isList, toColumn, valueSchema, type FieldDefinition } from './field-types.js';
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
    .describe('JSON: {"field": value} or {"field": {"eq"|"ne"|"gt"|"gte"|"lt"|"lte"|"in"|"contains": value}}'),
});
export type ListQuery = z.output<typeof listQuerySchema>;

const SYSTEM_SORT: Record<string, string> = { createdAt: 'created_at', updatedAt: 'updated_at', slug: 'slug', status: 'status', _id: 'id' };
const UNSORTABLE = new Set(['richtext', 'markdown', 'json']);

function invalid(where: string, message: string): never {
  throw new ValidationError(`Invalid ${where}: ${message}`, [{ path: `query.${where}`, message }]);
}

/** `title`, `-createdAt`, `price:desc`, comma-separated; the id breaks ties so pages never overlap. */
export function orderFor(c: CollectionDefinition, sort: string | undefined): Order {
  const parts = (sort ?? '-createdAt')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .slice(0, 5);
  const order: Array<[string, 'ASC' | 'DESC']> = [];
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
    order.push([system ?? columnName(def!), dir]);
  }
  if (!order.some(([col]) => col === 'id')) order.push(['id', 'ASC']);
  return order;
}

/** Field types `search` looks in and `contains` applies to (a multiple select is a JSON list: not searched). */
const SEARCHED: string[] = ['text', 'richtext', 'markdown', 'select', 'email', 'url', 'color'];
const searched = (f: FieldDefinition) => SEARCHED.includes(f.type) && !isList(f);

const OPS: Record<string, symbol> = { eq: Op.eq, ne: Op.ne, gt: Op.gt, gte: Op.gte, lt: Op.lt, lte: Op.lte, in: Op.in };

function condition(f: FieldDefinition, raw: unknown): unknown {
  const one = (v: unknown, op: string) => {
    if (v === null && (op === 'eq' || op === 'ne')) return null;
    const parsed = valueSchema(f).safeParse(v);
    if (!parsed.success) invalid('filter', `${f.name}.${op}: ${parsed.error.issues[0]?.message}`);
    return toColumn(f, parsed.data);
  };
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return one(raw, 'eq');
  const out: Record<symbol, unknown> = {};
  for (const [op, v] of Object.entries(raw)) {
    if (op === 'contains') {
      if (!searched(f) || typeof v !== 'string') invalid('filter', `${f.name}.contains needs a text field and a string`);
      out[Op.like] = `%${v.replace(/[\\%_]/g, '')}%`;
    } else if (op === 'in') {
      if (!Array.isArray(v) || v.length > 100) invalid('filter', `${f.name}.in needs an array of at most 100 values`);
      out[Op.in] = v.map((x) => one(x, 'in'));
    } else if (Object.hasOwn(OPS, op) && OPS[op]) {
      if ((op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte') && UNSORTABLE.has(f.type))
        invalid('filter', `${f.name}.${op} is not defined for ${f.type}`);
      out[OPS[op]!] = one(v, op);
    } else {
      invalid('filter', `unknown operator '${op}' (eq, ne, gt, gte, lt, lte, in, contains)`);
    }
  }
  return out;
}

/** The WHERE of a list: tenant, status, the JSON filter and the search over text fields and the slug. */
export function whereFor(
  c: CollectionDefinition,
  tenantId: string,
  query: Pick<ListQuery, 'filter' | 'search'>,
  status: EntryStatus | undefined,
): WhereOptions {
  const and: WhereOptions[] = [{ tenant_id: tenantId }];
  if (status) and.push({ status });
  if (query.filter) {
    let filter: unknown;
    try {
      filter = JSON.parse(query.filter);
    } catch {
      invalid('filter', 'not valid JSON');
    }
    if (!filter || typeof filter !== 'object' || Array.isArray(filter)) invalid('filter', 'a JSON object of field conditions');
    refuseControlCharacters(filter, 'query.filter');
    for (const [name, raw] of Object.entries(filter as Record<string, unknown>)) {
      const f = c.fields.find((x) => x.name === name);
      if (!f) invalid('filter', `unknown field '${name}'`);
      if (f.type === 'json') invalid('filter', `cannot filter by the json field '${name}'`);
      // A later change adds `has` for lists; until then no operator of a scalar fits a multiple select.
      if (isList(f)) invalid('filter', `cannot filter by the multiple select field '${name}'`);
      and.push({ [columnName(f)]: condition(f, raw) });
    }
  }
  const term = query.search?.trim().toLowerCase();
  if (term) {
    const columns = ['slug', ...c.fields.filter(searched).map(columnName)];
    and.push({
      [Op.or]: columns.map((col) => Sequelize.where(Sequelize.fn('INSTR', Sequelize.fn('LOWER', Sequelize.col(col)), term), Op.gt, 0)),
    });
  }
  return { [Op.and]: and };
}

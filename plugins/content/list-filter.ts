import { Op, Sequelize, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { ValidationError } from '../../kernel/sdk.js';
import { refuseControlCharacters } from '../../kernel/http/refuse-control-characters.js';
import type { CollectionDefinition } from './collection-schema.js';
import { columnName, isList, isManyRelation, toColumn, valueSchema, type FieldDefinition } from './field-types.js';
import { listCondition, listSql, UUID, type ListSql } from './list-filter-lists.js';
import { inverseOf, type InverseField } from './relation-inverse.js';
import { componentSubject, type ComponentSubject } from './component-filter.js';
import type { LocalizedColumns, LocalizedSubject } from './entry-locales.js';
import type { TargetInLocale } from './locale-relation-paths.js';

/**
 * The `filter` query parameter of a list (API decisions, "Content model v2"): a JSON object whose keys
 * are field names (a bare value means `eq`, an object holds operators) or the groups `$or`, `$and`
 * (arrays of such objects) and `$not` (one object). Every unknown field, operator or group is a 400
 * naming it. Bounded: at most 5 levels of groups, 20 items per group and 50 conditions in all.
 */
export const FILTER_LIMITS = { depth: 5, groupItems: 20, conditions: 50 } as const;

export const FILTER_OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'contains', 'startsWith', 'null', 'has'] as const;

/** Field types `search` looks in and `contains` / `startsWith` apply to (a multiple select is a JSON list: not searched). */
const SEARCHED: string[] = ['text', 'richtext', 'markdown', 'select', 'email', 'url', 'color'];
export const searched = (f: FieldDefinition) => SEARCHED.includes(f.type) && !isList(f);
const UNORDERED = new Set(['richtext', 'markdown', 'json']);
const COMPARISON: Record<string, symbol> = { eq: Op.eq, ne: Op.ne, gt: Op.gt, gte: Op.gte, lt: Op.lt, lte: Op.lte };

export function invalidQuery(where: string, message: string): never {
  throw new ValidationError(`Invalid ${where}: ${message}`, [{ path: `query.${where}`, message }]);
}
function invalid(message: string): never {
  invalidQuery('filter', message);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Case-insensitive "the value starts with `term`", without LIKE wildcards (a `%` in the term is a `%`). */
function startsWith(lhs: ReturnType<typeof Sequelize.col | typeof Sequelize.fn | typeof Sequelize.literal>, term: string): WhereOptions {
  return Sequelize.where(Sequelize.fn('INSTR', Sequelize.fn('LOWER', lhs), term.toLowerCase()), 1);
}

/**
 * One field's condition: a bare value (eq) or an object of operators, all of which must hold. `inner`: the
 * field is inside a component, compared through its JSON path (component-filter.ts), or a localized field compared
 * through its value in a locale (entry-locales.ts); else its column.
 */
function fieldCondition(
  f: FieldDefinition,
  raw: unknown,
  path: string,
  inner?: ComponentSubject | LocalizedSubject,
  column: string = columnName(f),
): WhereOptions {
  const on = (cond: unknown): WhereOptions =>
    inner ? Sequelize.where(inner.lhs, cond === null ? { [Op.is]: null } : (cond as WhereOptions)) : { [column]: cond };
  const value = (v: unknown, op: string) => {
    if (v === null && (op === 'eq' || op === 'ne')) return null;
    const parsed = valueSchema(f).safeParse(v);
    if (!parsed.success) invalid(`${path}.${op}: ${parsed.error.issues[0]?.message}`);
    return inner ? inner.stored(parsed.data) : toColumn(f, parsed.data);
  };
  if (!isObject(raw)) return on(value(raw, 'eq'));
  const ops: Record<symbol, unknown> = {};
  const extra: WhereOptions[] = [];
  for (const [op, v] of Object.entries(raw)) {
    if (op === 'contains' || op === 'startsWith') {
      if (!searched(f) || typeof v !== 'string') invalid(`${path}.${op} needs a text field and a string`);
      if (op === 'contains') ops[Op.like] = `%${v.replace(/[\\%_]/g, '')}%`;
      else extra.push(startsWith(inner?.lhs ?? Sequelize.col(column), v));
    } else if (op === 'in' || op === 'nin') {
      if (!Array.isArray(v) || v.length > 100) invalid(`${path}.${op} needs an array of at most 100 values`);
      ops[op === 'in' ? Op.in : Op.notIn] = v.map((x) => value(x, op));
    } else if (op === 'null') {
      if (typeof v !== 'boolean') invalid(`${path}.null needs true or false`);
      extra.push(on(v ? { [Op.is]: null } : { [Op.not]: null }));
    } else if (Object.hasOwn(COMPARISON, op)) {
      if (op !== 'eq' && op !== 'ne' && UNORDERED.has(f.type)) invalid(`${path}.${op} is not defined for ${f.type}`);
      const operand = value(v, op);
      // Inside JSON, a comparison with null is spelled IS (NOT) NULL.
      if (inner && operand === null) extra.push(on(op === 'eq' ? { [Op.is]: null } : { [Op.not]: null }));
      else ops[COMPARISON[op]!] = operand;
    } else {
      invalid(`unknown operator '${op}' on '${path}' (${FILTER_OPERATORS.join(', ')})`);
    }
  }
  const all: WhereOptions[] = [...(Object.getOwnPropertySymbols(ops).length ? [on(ops)] : []), ...extra];
  if (!all.length) invalid(`'${path}' has no operator`);
  return all.length === 1 ? all[0]! : { [Op.and]: all };
}

/** A collection as a relation path's subquery needs it: its fields, its table and its model. */
export type FilterTarget = CollectionDefinition & { table: string; model: ModelStatic<Model> };

/**
 * Whose filter it is: its tenant, where relation paths find their targets, which of them the caller may read
 * (a path into another is refused: it would tell what that collection holds), and whether it sees published
 * entries only (then so does a relation path).
 */
export interface FilterScope {
  tenantId: string;
  lookup?: (name: string) => FilterTarget | undefined;
  readable?: (collection: string) => boolean;
  publishedOnly?: boolean;
  /** The database's dialect (a path into a component reads its JSON: json_extract on sqlite, JSON_VALUE on mariadb). */
  dialect?: string;
  /** In a non-default locale: the SQL of the collection's localized fields there (entry-locales.ts, localizedColumns). */
  localized?: LocalizedColumns;
  /**
   * The caller's read rules on the collections a relation path steps into (entry-access.ts, pathRules): `field`
   * throws 403 FIELD_FORBIDDEN for a field the rule hides; `where` is the condition their entries must meet.
   */
  rules?: PathRules;
  /** In a non-default locale: a relation path's target there (its localized fields, its entries published there). */
  targetInLocale?: (target: FilterTarget) => TargetInLocale;
}

/** See FilterScope.rules. */
export interface PathRules {
  field(collection: string, field: string, path: string): void;
  where(target: FilterTarget): WhereOptions | null;
}

/**
 * System fields a filter may name (API decisions, "Roles and rules": rules' `where` uses them, list filters
 * too): the entry's author and last editor (user ids), its status and its slug, compared as text.
 */
const SYSTEM_FIELDS: Record<string, { column: string; field: FieldDefinition }> = {
  createdBy: { column: 'created_by', field: { name: 'createdBy', type: 'text' } as FieldDefinition },
  updatedBy: { column: 'updated_by', field: { name: 'updatedBy', type: 'text' } as FieldDefinition },
  status: { column: 'status', field: { name: 'status', type: 'select', options: ['draft', 'published', 'archived'] } as FieldDefinition },
  slug: { column: 'slug', field: { name: 'slug', type: 'text' } as FieldDefinition },
};

/** Relation paths reach this many relations deep (`author.country.name` is two). */
export const RELATION_PATH_DEPTH = 2;

class FilterReader {
  private conditions = 0;

  constructor(
    private readonly c: CollectionDefinition,
    private readonly scope: FilterScope,
  ) {}

  /** An object of conditions and groups, all of which must hold. */
  group(raw: unknown, at: string, depth: number): WhereOptions {
    if (!isObject(raw)) invalid(`${at}: a JSON object of field conditions`);
    if (depth > FILTER_LIMITS.depth) invalid(`${at}: groups nest at most ${FILTER_LIMITS.depth} levels deep`);
    const and: WhereOptions[] = [];
    for (const [key, value] of Object.entries(raw)) {
      if (key === '$or' || key === '$and') and.push({ [key === '$or' ? Op.or : Op.and]: this.list(value, `${at}.${key}`, depth) });
      else if (key === '$not') and.push({ [Op.not]: this.group(value, `${at}.$not`, depth + 1) });
      else if (key.startsWith('$')) invalid(`unknown group '${key}' ($or, $and, $not)`);
      else and.push(this.field(key, value));
    }
    if (!and.length && depth > 0) invalid(`${at}: an empty group`);
    return { [Op.and]: and };
  }

  private list(raw: unknown, at: string, depth: number): WhereOptions[] {
    if (!Array.isArray(raw) || raw.length < 1 || raw.length > FILTER_LIMITS.groupItems)
      invalid(`${at} needs an array of 1 to ${FILTER_LIMITS.groupItems} objects`);
    return raw.map((item, i) => this.group(item, `${at}.${i}`, depth + 1));
  }

  private field(name: string, raw: unknown): WhereOptions {
    if (++this.conditions > FILTER_LIMITS.conditions) invalid(`at most ${FILTER_LIMITS.conditions} conditions`);
    return this.pathCondition(this.c, name.split('.'), name, raw, 0);
  }

  /**
   * A condition on `segments` from collection `at`: a field of it, or (for `relation.field`) its relation
   * column IN the ids of the target's entries (of the same tenant) that meet the rest of the path.
   */
  private pathCondition(at: CollectionDefinition, segments: string[], path: string, raw: unknown, depth: number): WhereOptions {
    const [name, ...rest] = segments as [string, ...string[]];
    if (depth > 0) this.scope.rules?.field(at.name, name, path);
    const f = at.fields.find((x) => x.name === name);
    const system = f || rest.length ? undefined : SYSTEM_FIELDS[name];
    if (system) {
      if (isObject(raw) && ('has' in raw || 'contains' in raw || 'startsWith' in raw) && system.column !== 'slug')
        invalid(`'${path}' is compared with eq, ne, in, nin or null`);
      return fieldCondition(system.field, raw, path, undefined, system.column);
    }
    if (!f) invalid(`unknown field '${path}'`);
    const inverse = inverseOf(f);
    if (inverse) return this.inverseCondition(inverse, rest, path, raw, depth);
    // A localized field in a non-default locale: its value there, of the listed collection or of a relation path's
    // target (locale-relation-paths.ts); a localized one-relation is stepped through by its value there.
    const localized = depth === 0 ? this.scope.localized?.(f) : this.scope.targetInLocale?.(at as FilterTarget).columns?.(f);
    if (localized === null) invalid(`cannot filter by the localized ${f.type} field '${path}' in a locale other than the default`);
    if (localized && !rest.length) {
      if (isObject(raw) && 'has' in raw) invalid(`${path}.has needs a multiple select or a many-relation`);
      return fieldCondition(f, raw, f.name, localized);
    }
    if (!rest.length) {
      if (f.type === 'json') invalid(`cannot filter by the json field '${path}'`);
      if (isList(f)) return listCondition(f, raw, this.sql(at), invalid);
      if (isObject(raw) && 'has' in raw) invalid(`${path}.has needs a multiple select or a many-relation`);
      if (f.type === 'component' || f.type === 'blocks') invalid(`cannot filter by the ${f.type} field '${path}' (name a field inside it)`);
      return fieldCondition(f, raw, f.name);
    }
    if (f.type === 'component' || f.type === 'blocks') {
      const subject = componentSubject(f, rest, path, this.scope.dialect ?? 'sqlite');
      return fieldCondition(subject.field, raw, path, subject);
    }
    if (f.type !== 'relation') invalid(`unknown field '${path}': '${name}' is not a relation`);
    const target = this.target(f.collection!, path, depth);
    const sub = this.select(target, 'id', this.pathCondition(target, rest, path, raw, depth + 1));
    if (localized) return Sequelize.where(localized.lhs, Op.in, Sequelize.literal(`(${sub})`));
    // A many-relation matches when any of its entries does.
    if (isManyRelation(f)) return Sequelize.literal(this.sql(at).anyIn(columnName(f), sub));
    return Sequelize.literal(this.sql(at).oneIn(columnName(f), sub));
  }

  /** The collection a relation path steps into (one level deeper), if the caller may read it. */
  private target(name: string, path: string, depth: number): FilterTarget {
    if (depth + 1 > RELATION_PATH_DEPTH) invalid(`'${path}' reaches more than ${RELATION_PATH_DEPTH} relations deep`);
    const target = this.scope.lookup?.(name);
    if (!target) invalid(`unknown field '${path}': its target collection is not available`);
    if (this.scope.readable && !this.scope.readable(target.name)) invalid(`'${path}': you may not read the collection '${target.name}'`);
    return target;
  }

  /**
   * SELECT `column` FROM the target's entries of this tenant (published ones for readers of published entries; those
   * the caller's read rule on it lets it read) meeting `inner`.
   */
  private select(target: FilterTarget, column: string, inner: WhereOptions): string {
    const byRule = this.scope.rules?.where(target);
    // In a locale, a target with localized fields is published where its version there is (locale-relation-paths.ts).
    const published = this.scope.targetInLocale?.(target).published ?? { status: 'published' };
    const where: WhereOptions = {
      [Op.and]: [{ tenant_id: this.scope.tenantId }, ...(this.scope.publishedOnly ? [published] : []), ...(byRule ? [byRule] : []), inner],
    };
    const qg = (target.model.sequelize!.getQueryInterface() as unknown as { queryGenerator: SelectGenerator }).queryGenerator;
    return qg.selectQuery(target.table, { attributes: [column], where }, target.model).replace(/;\s*$/, '');
  }

  /**
   * A condition on an inverse field (relation-inverse.ts): the entry's id is among those the source's relation
   * holds, in the source entries that meet the rest of the path (`posts.title`), that are the one named
   * (`{has: id}`), or any (`{null: false}`; `{null: true}`: none).
   */
  private inverseCondition(inv: InverseField, rest: string[], path: string, raw: unknown, depth: number): WhereOptions {
    const source = this.target(inv.source, path, depth);
    const column = columnName(inv.field);
    let inner: WhereOptions = isManyRelation(inv.field) ? {} : { [column]: { [Op.not]: null } };
    let none = false;
    if (rest.length) inner = { [Op.and]: [inner, this.pathCondition(source, rest, path, raw, depth + 1)] };
    else {
      const ops = isObject(raw) ? Object.keys(raw) : [];
      if (ops.length !== 1 || (ops[0] !== 'has' && ops[0] !== 'null')) invalid(`'${path}' is a list: filter it with has or null`);
      const v = (raw as Record<string, unknown>)[ops[0]!];
      if (ops[0] === 'has') {
        if (typeof v !== 'string' || !UUID.test(v)) invalid(`${path}.has needs one entry id`);
        inner = { [Op.and]: [inner, { id: v }] };
      } else if (typeof v !== 'boolean') invalid(`${path}.null needs true or false`);
      else none = v;
    }
    const ids = isManyRelation(inv.field)
      ? this.sql(source).unnest(source.table, column, this.select(source, 'id', inner))
      : this.select(source, column, inner);
    return { id: { [none ? Op.notIn : Op.in]: Sequelize.literal(`(${ids})`) } };
  }

  /** The SQL of list conditions in the database of `at` (every collection of a kernel shares one). */
  private sql(at: CollectionDefinition): ListSql {
    return listSql(this.scope.lookup?.(at.name)?.model.sequelize ?? undefined);
  }
}

/** The part of Sequelize's query generator a subquery is written with (values escaped inline). */
interface SelectGenerator {
  selectQuery(table: string, options: { attributes: string[]; where: WhereOptions }, model: ModelStatic<Model>): string;
}

/**
 * The WHERE of a `filter` parameter (JSON text), or a 400 naming what is wrong. `scope.lookup` finds the
 * targets of relation paths (`author.name`); their subqueries are kept to `scope.tenantId`.
 */
export function filterWhere(c: CollectionDefinition, text: string, scope: FilterScope = { tenantId: '' }): WhereOptions {
  let filter: unknown;
  try {
    filter = JSON.parse(text);
  } catch {
    invalid('not valid JSON');
  }
  return filterObjectWhere(c, filter, scope);
}

/** The WHERE of a filter already parsed (a rule's `where`, kernel/access-rules.ts), with the same checks and limits. */
export function filterObjectWhere(c: CollectionDefinition, filter: unknown, scope: FilterScope = { tenantId: '' }): WhereOptions {
  if (!isObject(filter)) invalid('a JSON object of field conditions');
  refuseControlCharacters(filter, 'query.filter');
  return new FilterReader(c, scope).group(filter, 'filter', 0);
}

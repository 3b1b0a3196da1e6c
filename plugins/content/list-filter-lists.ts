import { Op, Sequelize, type WhereOptions } from 'sequelize';
import { columnName, type FieldDefinition } from './field-types.js';

/**
 * Filters on list fields (a multiple select, a many-relation: a JSON list in a text column), API decisions
 * "Content model v2": `has` (the list holds the value), `null` (true: no item), and, through list-filter.ts,
 * relation paths on a many-relation that hold when any of its entries matches. SQLite reads the list with
 * json_each, MariaDB with JSON_CONTAINS and JSON_TABLE; the column is named without its table, so in a
 * relation path's subquery it is the target's.
 */
export interface ListSql {
  /** The list in `column` holds `value` (a JSON string). */
  has(column: string, value: string): string;
  /** Some item of the list in `column` is among the ids `subquery` selects. */
  anyIn(column: string, subquery: string): string;
  /**
   * The one-relation `column` is among the ids `subquery` selects. On SQLite wrapped in unlikely(): the planner cannot
   * tell how many ids a subquery gives and otherwise walks the list's order index, reading the whole table when
   * the matches are the oldest rows (100,000 rows: 50 ms); told the condition is rare it reads the column's index
   * (content migration 0007) and sorts the few matches (under 1 ms, bench case 19). The index still serves the term.
   */
  oneIn(column: string, subquery: string): string;
  /** The items of the lists in `column` of the rows of `table` whose id `subquery` selects. */
  unnest(table: string, column: string, subquery: string): string;
}

const quoted = (column: string) => `\`${column}\``;

export function listSql(sequelize: Sequelize | undefined): ListSql {
  const escape = (v: string) => (sequelize ? sequelize.escape(v) : `'${v.replace(/'/g, "''")}'`);
  if (sequelize?.getDialect() === 'mariadb' || sequelize?.getDialect() === 'mysql')
    return {
      has: (column, value) => `JSON_CONTAINS(${quoted(column)}, ${escape(JSON.stringify(value))})`,
      anyIn: (column, sub) =>
        `EXISTS (SELECT 1 FROM JSON_TABLE(${quoted(column)}, '$[*]' COLUMNS (v VARCHAR(255) PATH '$')) AS jt WHERE jt.v IN (${sub}))`,
      oneIn: (column, sub) => `${quoted(column)} IN (${sub})`,
      unnest: (table, column, sub) =>
        `SELECT jt.v FROM ${quoted(table)} AS s2, JSON_TABLE(s2.${quoted(column)}, '$[*]' COLUMNS (v VARCHAR(255) PATH '$')) AS jt WHERE s2.id IN (${sub})`,
    };
  return {
    has: (column, value) => `EXISTS (SELECT 1 FROM json_each(${quoted(column)}) WHERE value = ${escape(value)})`,
    anyIn: (column, sub) => `EXISTS (SELECT 1 FROM json_each(${quoted(column)}) WHERE value IN (${sub}))`,
    oneIn: (column, sub) => `unlikely(${quoted(column)} IN (${sub}))`,
    unnest: (table, column, sub) =>
      `SELECT j.value FROM ${quoted(table)} AS s2, json_each(s2.${quoted(column)}) AS j WHERE s2.id IN (${sub})`,
  };
}

/** An entry id. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A condition on a list field: an object of `has` (one item: an option, an entry id) and `null`, all of which must hold. */
export function listCondition(f: FieldDefinition, raw: unknown, sql: ListSql, invalid: (message: string) => never): WhereOptions {
  if (!isObject(raw)) invalid(`'${f.name}' is a list: filter it with has or null`);
  const column = columnName(f);
  const all: WhereOptions[] = [];
  for (const [op, v] of Object.entries(raw)) {
    if (op === 'has') {
      // One item: an option of the select, or an entry id.
      const ok = typeof v === 'string' && (f.type === 'select' ? (f.options ?? []).includes(v) : UUID.test(v));
      if (!ok) invalid(`${f.name}.has needs one ${f.type === 'select' ? 'of its options' : 'entry id'}`);
      all.push(Sequelize.literal(sql.has(column, v as string)));
    } else if (op === 'null') {
      if (typeof v !== 'boolean') invalid(`${f.name}.null needs true or false`);
      const empty = `(${quoted(column)} IS NULL OR ${quoted(column)} = '[]')`;
      all.push(Sequelize.literal(v ? empty : `NOT ${empty}`));
    } else {
      invalid(`unknown operator '${op}' on the list '${f.name}' (has, null)`);
    }
  }
  if (!all.length) invalid(`'${f.name}' has no operator`);
  return all.length === 1 ? all[0]! : { [Op.and]: all };
}

import { createHash } from 'node:crypto';
import { DataTypes, QueryTypes, type QueryInterface, type Sequelize } from 'sequelize';
import type { MigrationDefinition } from '../../kernel/sdk.js';
import { columnName, columnOf, isManyRelation, type FieldDefinition } from './field-types.js';
import { convertColumn, sameStorage } from './field-conversion.js';
import { removedBlockTypes, withoutBlocks } from './component-rewrite.js';
import { fromColumn, toColumn } from './field-values.js';

export interface TableRef {
  name: string;
  uid: string;
  table: string;
}

export const tableNameFor = (name: string) => `cms_c_${name}`;
export const indexName = (ref: Pick<TableRef, 'uid'>, column: string) => `ix_${ref.uid.slice(0, 8)}_${column}`;

/** The columns every entry table has besides its fields. */
export const SYSTEM_COLUMNS = {
  id: { type: DataTypes.STRING(36), primaryKey: true },
  tenant_id: { type: DataTypes.STRING(64), allowNull: false },
  sync_id: { type: DataTypes.STRING(36), allowNull: false },
  slug: { type: DataTypes.STRING(191), allowNull: false },
  status: { type: DataTypes.STRING(16), allowNull: false },
  version: { type: DataTypes.INTEGER, allowNull: false },
  created_by: { type: DataTypes.STRING(36), allowNull: true },
  updated_by: { type: DataTypes.STRING(36), allowNull: true },
  created_at: { type: DataTypes.BIGINT, allowNull: false },
  updated_at: { type: DataTypes.BIGINT, allowNull: false },
};

/**
 * Fields with an index on (tenant_id, column): unique and indexed ones, and every one-relation (a filter through it,
 * `{"author.name": ...}`, and an inverse field look entries up by its column; content migration 0007 gives the
 * one-relations of tables created before the same index). A many-relation is a JSON list: no index reaches inside.
 */
export const wantsIndex = (f: FieldDefinition) => Boolean(f.unique || f.indexed || (f.type === 'relation' && !isManyRelation(f)));

async function addFieldIndex(q: QueryInterface, ref: TableRef, f: FieldDefinition): Promise<void> {
  await q.addIndex(ref.table, ['tenant_id', columnName(f)], { unique: Boolean(f.unique), name: indexName(ref, columnName(f)) });
}

/** Drops a field's index if it is there (a one-relation of a table from before 0007 may have none). */
async function dropFieldIndex(q: QueryInterface, ref: TableRef, f: FieldDefinition): Promise<void> {
  const name = q.quoteIdentifier(indexName(ref, columnName(f)));
  await q.sequelize.query(
    q.sequelize.getDialect() === 'sqlite'
      ? `DROP INDEX IF EXISTS ${name}`
      : `DROP INDEX IF EXISTS ${name} ON ${q.quoteIdentifier(ref.table)}`,
  );
}

/** The step is identified by what it does, so the ledger's checksum records the change itself. */
function step(name: string, change: unknown, up: MigrationDefinition['up']): MigrationDefinition {
  return { name, checksum: createHash('sha256').update(JSON.stringify(change)).digest('hex'), up };
}

const stepName = (ref: TableRef, what: string) => `content/${ref.name}-${ref.uid}/${what}`;

/**
 * (tenant_id, created_by, status): a count under a rule on the author and the status (content migration 0016) reads
 * this index alone. Added once (a table created after 0016 already has it).
 */
export async function addAuthorIndex(q: QueryInterface, ref: Pick<TableRef, 'uid' | 'table'>): Promise<void> {
  const name = indexName(ref, 'author');
  const existing = (await q.showIndex(ref.table)) as Array<{ name: string }>;
  if (existing.some((i) => i.name === name)) return;
  await q.addIndex(ref.table, ['tenant_id', 'created_by', 'status'], { name });
}

export function createTableMigration(ref: TableRef, fields: FieldDefinition[], options: { singleton?: boolean } = {}): MigrationDefinition {
  // The change as recorded before singletons existed when the table is not one (its checksum stays the same).
  const change = options.singleton ? { create: ref.table, fields, singleton: true } : { create: ref.table, fields };
  return step(stepName(ref, 'v1'), change, async ({ queryInterface: q, sequelize }) => {
    await q.createTable(ref.table, {
      ...SYSTEM_COLUMNS,
      ...Object.fromEntries(fields.map((f) => [columnName(f), columnOf(f, sequelize.getDialect())])),
    });
    await q.addIndex(ref.table, ['tenant_id', 'slug'], { unique: true, name: indexName(ref, 'slug') });
    // The lists' default order (-createdAt, then the id) from an index, with and without the status filter
    // (content migration 0004 gives tables created before it the same two).
    await q.addIndex(ref.table, {
      name: indexName(ref, 'list_status'),
      fields: ['tenant_id', 'status', { name: 'created_at', order: 'DESC' }, 'id'],
    });
    await q.addIndex(ref.table, { name: indexName(ref, 'list'), fields: ['tenant_id', { name: 'created_at', order: 'DESC' }, 'id'] });
    await q.addIndex(ref.table, ['sync_id'], { name: indexName(ref, 'sync') });
    await addAuthorIndex(q, ref);
    // A singleton's one entry per tenant, kept by the database whichever writer inserts.
    if (options.singleton) await q.addIndex(ref.table, ['tenant_id'], { unique: true, name: indexName(ref, 'single') });
    for (const f of fields.filter(wantsIndex)) await addFieldIndex(q, ref, f);
  });
}

/**
 * The table change from one field list to the next: new columns, dropped columns (their data goes),
 * indexes added or dropped. A field keeps its column while its name and storage stay; a type change the
 * caller allowed (field-conversion.ts) converts the column's values; required, default, label and options
 * need no table change.
 */
export function alterTableMigration(
  ref: TableRef,
  version: number,
  before: FieldDefinition[],
  after: FieldDefinition[],
): MigrationDefinition {
  const old = new Map(before.map((f) => [f.name, f]));
  const next = new Map(after.map((f) => [f.name, f]));
  return step(stepName(ref, `v${version}`), { alter: ref.table, before, after }, async ({ queryInterface: q, sequelize }) => {
    for (const f of before) {
      if (next.has(f.name)) continue;
      if (wantsIndex(f)) await dropFieldIndex(q, ref, f);
      await sequelize.query(`ALTER TABLE ${q.quoteIdentifier(ref.table)} DROP COLUMN ${q.quoteIdentifier(columnName(f))}`);
    }
    for (const f of after) {
      const was = old.get(f.name);
      if (!was) {
        await q.addColumn(ref.table, columnName(f), columnOf(f, sequelize.getDialect()));
        if (wantsIndex(f)) await addFieldIndex(q, ref, f);
        continue;
      }
      if (!sameStorage(was, f)) {
        await convertInPlace(q, sequelize, ref, was, f, version);
        continue;
      }
      if (removedBlockTypes(was, f).size) await rewriteColumn(q, sequelize, ref, f, (v) => dropBlocks(was, f, v));
      if (wantsIndex(was) && (!wantsIndex(f) || Boolean(was.unique) !== Boolean(f.unique))) await dropFieldIndex(q, ref, was);
      if (wantsIndex(f) && (!wantsIndex(was) || Boolean(was.unique) !== Boolean(f.unique))) await addFieldIndex(q, ref, f);
    }
  });
}

/** Rows converted per read when a field changes its type. */
const CONVERT_PAGE = 500;

/**
 * Every stored value of field `f` passed through `convert`, page by page on the id, written to column `into`
 * (the field's own by default); a value `convert` answers unchanged is not written again.
 */
async function rewriteColumn(
  q: QueryInterface,
  sequelize: Sequelize,
  ref: TableRef,
  f: FieldDefinition,
  convert: (stored: unknown) => unknown,
  into = columnName(f),
): Promise<void> {
  const column = columnName(f);
  const [table, col, to, id] = [ref.table, column, into, 'id'].map((n) => q.quoteIdentifier(n));
  let after = '';
  for (;;) {
    const rows: Array<Record<string, unknown>> = await sequelize.query(
      `SELECT ${id}, ${col} FROM ${table} WHERE ${col} IS NOT NULL AND ${id} > :after ORDER BY ${id} LIMIT ${CONVERT_PAGE}`,
      { type: QueryTypes.SELECT, replacements: { after } },
    );
    for (const r of rows) {
      const v = convert(r[column]);
      if (into !== column || v !== r[column])
        await sequelize.query(`UPDATE ${table} SET ${to} = :v WHERE ${id} = :id`, { replacements: { v, id: r.id } });
    }
    if (rows.length < CONVERT_PAGE) break;
    after = String(rows[rows.length - 1]!.id);
  }
}

/** A stored blocks value without the blocks of types `f` no longer allows (the same value when it holds none). */
function dropBlocks(was: FieldDefinition, f: FieldDefinition, stored: unknown): unknown {
  const blocks = fromColumn(was, stored);
  if (!Array.isArray(blocks)) return stored;
  const kept = withoutBlocks(blocks, removedBlockTypes(was, f), new Map());
  return kept === blocks ? stored : toColumn(f, kept);
}

/**
 * A kept field whose type changes (field-conversion.ts allows it): a new column of the new type filled with
 * the converted values (null where one does not fit: the schema plan counted those and the caller confirmed),
 * then the old column (and its index) dropped and the new one renamed to the field's column.
 */
async function convertInPlace(
  q: QueryInterface,
  sequelize: Sequelize,
  ref: TableRef,
  was: FieldDefinition,
  f: FieldDefinition,
  version: number,
): Promise<void> {
  const temp = `${columnName(f)}__v${version}`;
  const [table, col, tmp] = [ref.table, columnName(f), temp].map((n) => q.quoteIdentifier(n));
  await q.addColumn(ref.table, temp, columnOf(f, sequelize.getDialect()));
  await rewriteColumn(q, sequelize, ref, f, (v) => convertColumn(was, f, v), temp);
  if (wantsIndex(was)) await dropFieldIndex(q, ref, was);
  await sequelize.query(`ALTER TABLE ${table} DROP COLUMN ${col}`);
  await sequelize.query(`ALTER TABLE ${table} RENAME COLUMN ${tmp} TO ${col}`);
  if (wantsIndex(f)) await addFieldIndex(q, ref, f);
}

export function dropTableMigration(ref: TableRef): MigrationDefinition {
  return step(stepName(ref, 'drop'), { drop: ref.table }, async ({ queryInterface: q }) => {
    await q.dropTable(ref.table);
  });
}

/**
 * Reading and checksumming whole tables in pages (keyset on the primary key `id`, or one read for the
 * small config tables), never all rows in memory. A table's checksum is order-independent: the sum
 * modulo 2^256 of the SHA-256 of each row's canonical JSON (keys sorted, values normalised so the
 * driver's types do not matter: bigint and numbers as decimal text, booleans as 1/0, Buffers as hex,
 * Dates as ISO). Equal checksums and counts = the same rows.
 */
import { createHash } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

export type Row = Record<string, unknown>;

/** A value as it goes into the NDJSON file (JSON cannot hold a bigint). */
export function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (Buffer.isBuffer(v)) return { $base64: v.toString('base64') };
  if (v instanceof Date) return v.toISOString();
  return v;
}

export const toJsonRow = (row: Row): Row => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, jsonValue(v)]));

function normal(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'bigint' || typeof v === 'number') return String(v);
  if (Buffer.isBuffer(v)) return v.toString('hex');
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object' && v && '$base64' in v)
    return Buffer.from(String((v as { $base64: string }).$base64), 'base64').toString('hex');
  return String(v);
}

export function rowHash(row: Row): Buffer {
  const keys = Object.keys(row).sort();
  return createHash('sha256')
    .update(JSON.stringify(keys.map((k) => [k, normal(row[k])])))
    .digest();
}

const MOD = 1n << 256n;

/** Accumulates an order-independent table checksum. */
export class TableChecksum {
  private sum = 0n;
  rows = 0;
  add(row: Row): void {
    this.sum = (this.sum + BigInt('0x' + rowHash(row).toString('hex'))) % MOD;
    this.rows++;
  }
  get hex(): string {
    return this.sum.toString(16).padStart(64, '0');
  }
}

export function quote(sequelize: Sequelize, name: string): string {
  return sequelize.getQueryInterface().quoteIdentifier(name);
}

export async function tableExists(sequelize: Sequelize, table: string): Promise<boolean> {
  try {
    await sequelize.getQueryInterface().describeTable(table);
    return true;
  } catch {
    return false;
  }
}

export async function columnsOf(sequelize: Sequelize, table: string, transaction?: Transaction): Promise<string[]> {
  return Object.keys(await sequelize.getQueryInterface().describeTable(table, { transaction } as never));
}

/** Every row of a table with an `id` primary key, page by page. */
export async function* pagesById(sequelize: Sequelize, table: string, pageSize: number, transaction?: Transaction): AsyncGenerator<Row[]> {
  const q = quote(sequelize, table);
  const id = quote(sequelize, 'id');
  let after: string | null = null;
  for (;;) {
    const rows: Row[] = await sequelize.query(
      after === null
        ? `SELECT * FROM ${q} ORDER BY ${id} LIMIT ${pageSize}`
        : `SELECT * FROM ${q} WHERE ${id} > :after ORDER BY ${id} LIMIT ${pageSize}`,
      { type: QueryTypes.SELECT, replacements: after === null ? {} : { after }, transaction },
    );
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    after = String(rows[rows.length - 1]!.id);
  }
}

/** A small table (config: roles, settings, themes) in one read. */
export async function allRows(sequelize: Sequelize, table: string, transaction?: Transaction): Promise<Row[]> {
  return sequelize.query(`SELECT * FROM ${quote(sequelize, table)}`, { type: QueryTypes.SELECT, transaction });
}

export async function countRows(sequelize: Sequelize, table: string, transaction?: Transaction): Promise<number> {
  const [r] = await sequelize.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${quote(sequelize, table)}`, {
    type: QueryTypes.SELECT,
    transaction,
  });
  return Number(r?.n ?? 0);
}

export async function tableChecksum(
  sequelize: Sequelize,
  table: string,
  pageSize: number,
  hasId = true,
  transaction?: Transaction,
): Promise<{ rows: number; checksum: string }> {
  const sum = new TableChecksum();
  if (hasId) {
    for await (const page of pagesById(sequelize, table, pageSize, transaction)) for (const row of page) sum.add(row);
  } else {
    for (const row of await allRows(sequelize, table, transaction)) sum.add(row);
  }
  return { rows: sum.rows, checksum: sum.hex };
}

/** The row as the NDJSON line gave it, ready to insert (only the table's current columns). */
export function fromJsonRow(row: Row, columns: Set<string>): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) {
    if (!columns.has(k)) continue;
    out[k] = v && typeof v === 'object' && '$base64' in v ? Buffer.from(String((v as { $base64: string }).$base64), 'base64') : v;
  }
  return out;
}

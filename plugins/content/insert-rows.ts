import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/**
 * Bound variables per statement: under SQLite's limit (32,766 since 3.32; the sqlite3 module bundles a
 * newer one) and far under MariaDB's 65,535 placeholders.
 */
const MAX_VARIABLES = 30_000;
/** Rows per statement at most. */
const MAX_ROWS = 1000;
/** Bytes of text per statement at most (about): well under MariaDB's max_allowed_packet (16 MiB by default). */
const MAX_BYTES = 4 * 1024 * 1024;

/**
 * Multi-row INSERTs of plain value arrays (no model instances) with bound parameters ($1, $2, ...: SQLite
 * binds them natively, MariaDB gets `?` placeholders), as few statements as the limits above allow.
 * Runs inside the caller's transaction.
 */
export async function insertRows(
  sequelize: Sequelize,
  quotedTable: string,
  columns: string[],
  rows: unknown[][],
  transaction: Transaction,
): Promise<void> {
  const qi = sequelize.getQueryInterface();
  const head = `INSERT INTO ${quotedTable} (${columns.map((c) => qi.quoteIdentifier(c)).join(',')}) VALUES `;
  const perRow = columns.length;
  const maxRows = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_VARIABLES / perRow)));
  let i = 0;
  while (i < rows.length) {
    const bind: unknown[] = [];
    const tuples: string[] = [];
    let bytes = 0;
    while (i < rows.length && tuples.length < maxRows && (tuples.length === 0 || bytes < MAX_BYTES)) {
      const row = rows[i++]!;
      const marks: string[] = [];
      for (const v of row) {
        bind.push(v === undefined ? null : v);
        marks.push(`$${bind.length}`);
        if (typeof v === 'string') bytes += v.length;
      }
      tuples.push(`(${marks.join(',')})`);
    }
    await sequelize.query(head + tuples.join(','), { bind, type: QueryTypes.INSERT, transaction });
  }
}

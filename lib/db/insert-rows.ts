import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { ValidationError } from '../../kernel/errors.js';

/**
 * Bound variables per statement: under SQLite's limit (32,766 since 3.32; the sqlite3 module bundles a
 * newer one) and far under MariaDB's 65,535 placeholders.
 */
const MAX_VARIABLES = 30_000;
/** Rows per statement at most. */
const MAX_ROWS = 1000;
/** Bytes of text per statement at most (about): well under MariaDB's max_allowed_packet (16 MiB by default). */
const MAX_BYTES = 4 * 1024 * 1024;

/** The sqlite3 connection a Sequelize transaction holds (Transaction#connection). */
interface SqliteConnection {
  run(sql: string, params: unknown[], callback: (err: Error | null) => void): void;
}

/**
 * Multi-row INSERTs of plain value arrays (no model instances) with bound parameters, as few statements
 * as the limits above allow, inside the caller's transaction. MariaDB: through Sequelize (`$n` -> `?`).
 * SQLite: positional `?` parameters bound as an array on the transaction's own connection, because
 * Sequelize hands the sqlite3 module named parameters (`{$1: ...}`), each looked up by name in the
 * statement (sqlite3_bind_parameter_index is a linear search): quadratic in the parameters per statement,
 * which made a 500-row INSERT take longer than its writing. Values with NUL are refused first, as
 * guard-queries does for every statement.
 */
export async function insertRows(
  sequelize: Sequelize,
  quotedTable: string,
  columns: string[],
  rows: unknown[][],
  transaction: Transaction,
): Promise<void> {
  const qi = sequelize.getQueryInterface();
  const sqlite = sequelize.getDialect() === 'sqlite' ? (transaction as unknown as { connection?: SqliteConnection }).connection : undefined;
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
        bind.push(v === undefined ? null : typeof v === 'boolean' ? Number(v) : v);
        marks.push(sqlite ? '?' : `$${bind.length}`);
        if (typeof v === 'string') {
          bytes += v.length;
          if (v.includes('\u0000')) throw new ValidationError('Text values must not contain NUL (\\u0000) characters');
        }
      }
      tuples.push(`(${marks.join(',')})`);
    }
    const sql = head + tuples.join(',');
    if (sqlite)
      await new Promise<void>((resolve, reject) => sqlite.run(sql, bind, (err) => (err ? reject(asSequelizeError(err)) : resolve())));
    else await sequelize.query(sql, { bind, type: QueryTypes.INSERT, transaction });
  }
}

/** A unique violation from the driver as Sequelize reports it (callers tell it from other failures). */
function asSequelizeError(err: Error & { code?: string }): Error {
  if (err.code === 'SQLITE_CONSTRAINT' && /UNIQUE constraint failed/.test(err.message))
    return new UniqueConstraintError({ message: err.message, parent: err } as never);
  return err;
}

/**
 * One consistent read snapshot of the whole database for a backup: every table read through it sees
 * the database as it was at one instant, while writers keep going.
 *
 * - MariaDB: an unmanaged REPEATABLE READ transaction; InnoDB fixes the snapshot at the first
 *   consistent read, so one cheap SELECT on a table is made right after opening it.
 * - SQLite (WAL): a separate read-only connection to the same file, `BEGIN` (deferred) and a first
 *   SELECT start the read snapshot. It never goes through Sequelize's shared connection (a BEGIN there
 *   would capture other requests' queries) nor the write gate (a top-level sequelize.transaction()
 *   takes the single writer): WAL lets writers commit while this reader keeps its snapshot.
 */
import { QueryTypes, Transaction, type Sequelize } from 'sequelize';
import sqlite3 from 'sqlite3';
import { quote, type Row } from './tables.js';

export interface Snapshot {
  /** A SELECT with `?` placeholders, read in the snapshot. */
  select(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Ends the snapshot (commit, close); never throws. */
  close(): Promise<void>;
}

const SQLITE_BUSY_MS = 5000;

function sqliteSnapshot(file: string): Promise<Snapshot> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (err) => {
      if (err) return reject(err);
      db.configure('busyTimeout', SQLITE_BUSY_MS);
      const exec = (sql: string) => new Promise<void>((ok, ko) => db.exec(sql, (e) => (e ? ko(e) : ok())));
      const all = (sql: string, params: unknown[] = []) =>
        new Promise<Row[]>((ok, ko) => db.all(sql, params, (e, rows) => (e ? ko(e) : ok(rows as Row[]))));
      const closeDb = () => new Promise<void>((ok) => db.close(() => ok()));
      let open = true;
      const snapshot: Snapshot = {
        select: all,
        async close() {
          if (!open) return;
          open = false;
          await exec('COMMIT').catch(() => undefined);
          await closeDb();
        },
      };
      // Deferred BEGIN: the read snapshot starts at the first SELECT, made here.
      exec('BEGIN')
        .then(() => all('SELECT COUNT(*) AS n FROM sqlite_master'))
        .then(
          () => resolve(snapshot),
          async (e: unknown) => {
            await closeDb();
            reject(e as Error);
          },
        );
    });
  });
}

async function mariadbSnapshot(sequelize: Sequelize, firstTable: string | null): Promise<Snapshot> {
  const transaction = await sequelize.transaction({ isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ });
  const select = (sql: string, params: unknown[] = []) =>
    sequelize.query<Row>(sql, { type: QueryTypes.SELECT, replacements: params, transaction }) as Promise<Row[]>;
  let open = true;
  const snapshot: Snapshot = {
    select,
    async close() {
      if (!open) return;
      open = false;
      await transaction.rollback().catch(() => undefined);
    },
  };
  try {
    // The first consistent read of an InnoDB table fixes the snapshot: made now, before anything else.
    await select(firstTable ? `SELECT 1 AS one FROM ${quote(sequelize, firstTable)} LIMIT 1` : 'SELECT 1 AS one');
  } catch (err) {
    await snapshot.close();
    throw err;
  }
  return snapshot;
}

/** Opens the snapshot; `firstTable` (any existing InnoDB table) is read first to fix it on MariaDB. */
export async function openSnapshot(sequelize: Sequelize, firstTable: string | null): Promise<Snapshot> {
  if (sequelize.getDialect() === 'sqlite') {
    const file = (sequelize as unknown as { options: { storage?: string } }).options.storage;
    if (!file || file === ':memory:') throw new Error('A backup needs a file-backed SQLite database');
    return sqliteSnapshot(file);
  }
  return mariadbSnapshot(sequelize, firstTable);
}

/** Every row of a table with an `id` primary key, page by page (keyset on `id`), in the snapshot. */
export async function* snapshotPages(snap: Snapshot, sequelize: Sequelize, table: string, pageSize: number): AsyncGenerator<Row[]> {
  const q = quote(sequelize, table);
  const id = quote(sequelize, 'id');
  let after: string | null = null;
  for (;;) {
    const rows: Row[] =
      after === null
        ? await snap.select(`SELECT * FROM ${q} ORDER BY ${id} LIMIT ${pageSize}`)
        : await snap.select(`SELECT * FROM ${q} WHERE ${id} > ? ORDER BY ${id} LIMIT ${pageSize}`, [after]);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    after = String(rows[rows.length - 1]!.id);
  }
}

export async function snapshotAll(snap: Snapshot, sequelize: Sequelize, table: string): Promise<Row[]> {
  return snap.select(`SELECT * FROM ${quote(sequelize, table)}`);
}

export async function snapshotCount(snap: Snapshot, sequelize: Sequelize, table: string): Promise<number> {
  const [r] = await snap.select(`SELECT COUNT(*) AS n FROM ${quote(sequelize, table)}`);
  return Number(r?.n ?? 0);
}

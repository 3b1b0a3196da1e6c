import sqlite3 from 'sqlite3';

/**
 * sqlite3 with every connection set up for several writers: a busy timeout (so a second process or
 * a transaction's own connection waits instead of failing with SQLITE_BUSY) and WAL journaling.
 * Passed to Sequelize as `dialectModule`; Sequelize opens one connection per transaction.
 */
class Database extends sqlite3.Database {
  constructor(filename: string, mode: number, callback: (err: Error | null) => void) {
    super(filename, mode, (err) => {
      if (err) return callback(err);
      this.configure('busyTimeout', 15000);
      this.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;', (e) => callback(e ?? null));
    });
  }
}

export const sqliteModule = { ...sqlite3, Database };

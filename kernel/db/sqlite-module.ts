import sqlite3 from 'sqlite3';

/**
 * sqlite3 with every connection set up for WAL journaling and a busy timeout. Within this process
 * writes never contend (they queue at the write gate, see write-gate.ts); the busy timeout only
 * covers other processes on the same file (a CLI command, a second instance). Passed to Sequelize as
 * `dialectModule`; Sequelize opens one connection per transaction (kept open for the next one: sqlite-connections.ts).
 */
export function sqliteModule(busyTimeoutMs: number) {
  class Database extends sqlite3.Database {
    constructor(filename: string, mode: number, callback: (err: Error | null) => void) {
      super(filename, mode, (err) => {
        if (err) return callback(err);
        this.configure('busyTimeout', busyTimeoutMs);
        this.exec('PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;', (e) => callback(e ?? null));
      });
    }
  }
  return { ...sqlite3, Database };
}

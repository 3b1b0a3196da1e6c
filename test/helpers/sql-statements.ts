import type { Sequelize } from 'sequelize';

/** The parts of a node-sqlite3 connection the counter uses. */
interface Traced {
  on(event: 'trace', listener: (sql: string) => void): unknown;
  removeListener(event: 'trace', listener: (sql: string) => void): unknown;
}

/**
 * The SQL statements the database runs while `work` runs, as text, and the work's result: on SQLite every statement
 * SQLite starts on Sequelize's connections (its trace hook, so also the list reader's prepared statements, which
 * bypass Sequelize), on MariaDB every statement Sequelize sends (its logging hook). A count, never a timing.
 */
export async function countStatements<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<{ value: T; statements: string[] }> {
  const statements: string[] = [];
  const seen = (sql: string) => void statements.push(sql.replace(/^Executing \([^)]*\): /, ''));
  if (sequelize.getDialect() === 'sqlite') {
    const manager = (sequelize as unknown as { connectionManager: { connections: Record<string, Traced> } }).connectionManager;
    const connections = Object.values(manager.connections);
    for (const c of connections) c.on('trace', seen);
    try {
      return { value: await work(), statements };
    } finally {
      for (const c of connections) c.removeListener('trace', seen);
    }
  }
  const options = (sequelize as unknown as { options: { logging: unknown } }).options;
  const before = options.logging;
  options.logging = seen;
  try {
    return { value: await work(), statements };
  } finally {
    options.logging = before;
  }
}

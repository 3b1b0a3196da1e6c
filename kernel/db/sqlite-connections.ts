import type { Sequelize } from 'sequelize';

/** The part of a node-sqlite3 Database used here. */
interface SqliteConnection {
  uuid?: string;
  filename?: string;
  close(callback?: (err: Error | null) => void): void;
}

/** The part of Sequelize's SQLite connection manager used here (dialects/sqlite/connection-manager.js). */
interface SqliteConnectionManager {
  connections: Record<string, SqliteConnection>;
  getConnection(options?: { uuid?: string; type?: string }): Promise<SqliteConnection>;
  releaseConnection(connection: SqliteConnection, force?: boolean): void;
  destroyConnection(connection: SqliteConnection): Promise<void>;
  _onProcessExit(): Promise<void>;
}

/** Connections of finished transactions kept open for the next ones (the write gate runs one at a time). */
const IDLE_MAX = 2;

const closeQuietly = (connection: SqliteConnection) =>
  new Promise<void>((resolve) => {
    try {
      connection.close(() => resolve());
    } catch {
      resolve();
    }
  });

/**
 * Sequelize's SQLite connection manager opens a connection (a file handle, then the WAL, synchronous and
 * foreign-key pragmas, see sqlite-module.ts) for every transaction and closes it after the commit: on an entry
 * write that was more work than the write's own statements. Here a connection released after a commit or
 * rollback that succeeded waits, open, for the next transaction (at most IDLE_MAX of them); one whose commit or
 * rollback failed is closed (Sequelize destroys it: its state is unknown), as are the waiting ones when the
 * database closes. An in-memory database (one shared connection) is left as it is.
 */
export function reuseTransactionConnections(sequelize: Sequelize): void {
  const storage = (sequelize as unknown as { options: { storage?: string } }).options.storage;
  if (!storage || storage === ':memory:') return;
  const manager = (sequelize as unknown as { connectionManager: SqliteConnectionManager }).connectionManager;
  const idle: SqliteConnection[] = [];
  let closed = false;
  const getConnection = manager.getConnection.bind(manager);
  const releaseConnection = manager.releaseConnection.bind(manager);
  const onProcessExit = manager._onProcessExit.bind(manager);
  manager.getConnection = async (options = {}) => {
    const uuid = options.uuid;
    if (uuid && uuid !== 'default' && !manager.connections[uuid] && idle.length) {
      const connection = idle.pop()!;
      manager.connections[uuid] = connection;
      return connection;
    }
    return getConnection(options);
  };
  manager.releaseConnection = (connection, force) => {
    const uuid = connection.uuid;
    if (!closed && !force && uuid && uuid !== 'default' && manager.connections[uuid] === connection && idle.length < IDLE_MAX) {
      delete manager.connections[uuid];
      idle.push(connection);
      return;
    }
    releaseConnection(connection, force);
  };
  // The abstract manager's destroyConnection goes to a pool SQLite does not have: the connection is closed instead.
  manager.destroyConnection = async (connection) => {
    if (connection.uuid && manager.connections[connection.uuid] === connection) delete manager.connections[connection.uuid];
    await closeQuietly(connection);
  };
  manager._onProcessExit = async () => {
    closed = true;
    await Promise.all(idle.splice(0).map(closeQuietly));
    return onProcessExit();
  };
}

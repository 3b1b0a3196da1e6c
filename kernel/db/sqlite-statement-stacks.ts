import type { Sequelize } from 'sequelize';

/** The part of Sequelize's SQLite Query (dialects/sqlite/query.js) used here. */
interface SqliteQuery {
  run(sql: string, parameters?: unknown): Promise<unknown>;
  _handleQueryResponse(metaData: unknown, columnTypes: unknown, err: unknown, results: unknown, errStack: string): unknown;
}

const PATCHED = Symbol.for('cms.sqliteStatementStacks');

/**
 * Sequelize's SQLite query makes an Error before each statement and reads its `stack` after it, error or not (the
 * formatted trace becomes the stack of a failed statement's error): formatting a trace per statement was about 4 % of
 * an entry write's CPU. Here that Error is made without frames (Error.stackTraceLimit 0 while Sequelize's `run` starts
 * the statement, synchronously), and a failed statement's error gets the trace of an Error made at the same place,
 * just before, formatted only then: the same frames as before, and no formatting when the statement succeeds.
 * Sequelize's dialect classes are shared by every instance of the process: patched once.
 */
export function formatStatementStacksOnError(sequelize: Sequelize): void {
  const proto = (sequelize as unknown as { dialect: { Query: { prototype: SqliteQuery & { [PATCHED]?: true } } } }).dialect.Query.prototype;
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const run = proto.run;
  const handle = proto._handleQueryResponse;
  proto.run = function (this: SqliteQuery, sql, parameters) {
    const site = new Error();
    this._handleQueryResponse = function (this: SqliteQuery, metaData, columnTypes, err, results, errStack) {
      return handle.call(this, metaData, columnTypes, err, results, err ? (site.stack ?? errStack) : errStack);
    };
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      return run.call(this, sql, parameters);
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
}

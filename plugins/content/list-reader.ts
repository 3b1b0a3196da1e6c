import { Op, QueryTypes, type Order, type Sequelize, type WhereOptions } from 'sequelize';
import { ValidationError } from '../../kernel/sdk.js';
import type { LoadedCollection } from './collections-service.js';
import { MATCH_IDS_MAX, type SearchMatch } from './search-engine.js';

/** A search's matches as a subquery of (`_sid`, `_srank`): an engine's own, or its ranked ids as a union of rows. */
function joinSql(match: SearchMatch): { sql: string; params: unknown[] } {
  if ('sql' in match) return match;
  const ids = match.ids.slice(0, MATCH_IDS_MAX);
  if (!ids.length) return { sql: 'SELECT NULL AS _sid, 0 AS _srank WHERE 1 = 0', params: [] };
  return {
    sql: ids.map((_, i) => (i ? 'SELECT ?, ?' : 'SELECT ? AS _sid, ? AS _srank')).join(' UNION ALL '),
    params: ids.flatMap((id, i) => [id, i]),
  };
}

/** A WHERE of whereFor's with nothing but the tenant's condition (`{[Op.and]: [{tenant_id}]}`). */
function tenantOnly(where: WhereOptions): boolean {
  const and = (where as { [Op.and]?: unknown })[Op.and];
  if (!Array.isArray(and) || and.length !== 1 || Object.getOwnPropertySymbols(where).length !== 1 || Object.keys(where).length)
    return false;
  const only = and[0] as object;
  return Object.keys(only).length === 1 && 'tenant_id' in only && Object.getOwnPropertySymbols(only).length === 0;
}

/** A page of plain rows (column -> stored value) and the number of rows the WHERE matches. */
export interface RowPage {
  rows: Array<Record<string, unknown>>;
  total: number;
}

/** The parts of a node-sqlite3 Database and Statement used here. */
interface SqliteStatement {
  all(params: unknown[], callback: (err: Error | null, rows: Array<Record<string, unknown>>) => void): unknown;
  finalize(callback?: () => void): unknown;
}
interface SqliteDatabase {
  prepare(sql: string, callback: (err: Error | null) => void): SqliteStatement;
}

/** The part of a pooled MariaDB connection (the `mariadb` driver's) used here. */
interface MariaDbConnection {
  query(sql: string, values: unknown[]): Promise<Array<Record<string, unknown>>>;
}

/** Prepared statements kept per connection (the least recently used one is finalized beyond). */
const STATEMENTS_MAX = 64;

/**
 * The list's read path without model instances: the page and the count as plain rows, both queries at
 * once. The WHERE comes from Sequelize's query generator (the same conditions findAll would send, values
 * bound as parameters); on SQLite the two statements run as prepared statements kept per SQL text on the
 * default read connection (Sequelize's own SELECT path first reads `PRAGMA table_info` of the table and
 * prepares and finalizes the statement on every call, and a finalize waits on the connection's mutex
 * while another statement runs); on MariaDB they go through `sequelize.query` as plain SELECTs on two
 * pooled connections.
 */
export class ListReader {
  private readonly statements = new WeakMap<object, Map<string, Promise<SqliteStatement>>>();
  private readonly connections = new Set<SqliteDatabase>();
  private closed = false;

  constructor(private readonly sequelize: Sequelize) {
    // SQLite refuses to close a connection with live statements: they are finalized first.
    const target = sequelize as unknown as { close(): Promise<void> };
    const close = target.close.bind(sequelize);
    target.close = async () => {
      await this.close();
      return close();
    };
  }

  /** A WHERE as SQL with positional `?` parameters (node-sqlite3 looks a `$n` name up linearly per bind; replacements on MariaDB). */
  private whereSql(c: LoadedCollection, where: WhereOptions): { sql: string; params: unknown[] } {
    const qi = this.sequelize.getQueryInterface();
    const qg = (qi as unknown as { queryGenerator: { whereQuery(where: unknown, options: unknown): string } }).queryGenerator;
    const params: unknown[] = [];
    const sql = qg.whereQuery(where, {
      model: c.model,
      bindParam: (value: unknown) => {
        params.push(value);
        return '?';
      },
    });
    return { sql, params };
  }

  /**
   * The page's and the count's SQL; `keyset` (cursor pagination, list-cursor.ts) narrows the page, not the count; `join`
   * (a search's matches, search-engine.ts) keeps the rows it names, its `_srank` there to order by.
   */
  private sql(
    c: LoadedCollection,
    where: WhereOptions,
    order: Order,
    limit: number,
    offset: number,
    keyset?: WhereOptions,
    join?: SearchMatch,
  ) {
    const qi = this.sequelize.getQueryInterface();
    const matched = join ? joinSql(join) : undefined;
    const withJoin = (w: { sql: string; params: unknown[] }) => (matched ? { sql: w.sql, params: [...matched.params, ...w.params] } : w);
    const counted = withJoin(this.whereSql(c, where));
    const paged = keyset ? withJoin(this.whereSql(c, { [Op.and]: [where, keyset] })) : counted;
    const name = qi.quoteIdentifier(c.table);
    const table = matched ? `${name} JOIN (${matched.sql}) _search ON _search._sid = ${name}.id` : name;
    // A column by name, or an expression (a localized field's value in a locale: a literal, entry-locales.ts).
    const orderSql = (order as Array<[string | { val: string }, string]>).map(
      ([col, dir]) => `${typeof col === 'string' ? qi.quoteIdentifier(col) : col.val} ${dir === 'DESC' ? 'DESC' : 'ASC'}`,
    );
    const page = `SELECT ${name}.* FROM ${table} ${paged.sql} ORDER BY ${orderSql.join(', ')} LIMIT ${Number(limit)} OFFSET ${Number(offset)}`;
    // A search whose WHERE is the tenant alone (no status, filter or rule): the engine's matches in its SQL are the
    // documents of the tenant's entries (written in the entries' own transactions), counted without reading an entry.
    if (join && 'sql' in join && tenantOnly(where))
      return { page, count: `SELECT COUNT(*) AS n FROM (${join.sql}) _search`, pageParams: paged.params, countParams: join.params };
    const count = `SELECT COUNT(*) AS n FROM ${table} ${counted.sql}`;
    return { page, count, pageParams: paged.params, countParams: counted.params };
  }

  async page(c: LoadedCollection, where: WhereOptions, order: Order, limit: number, offset: number): Promise<RowPage> {
    const started = this.start(c, where, order, limit, offset);
    const [rows, total] = await Promise.all([started.rows, started.total]);
    return { rows, total };
  }

  /**
   * The page and the count, both started at once, answered apart: a list that populates reads its targets as soon as
   * the rows are in, while the count still runs (on MariaDB on another pooled connection). A failed count is
   * marked handled here and throws where it is awaited.
   */
  start(
    c: LoadedCollection,
    where: WhereOptions,
    order: Order,
    limit: number,
    offset: number,
    options: {
      /** Cursor pagination's condition on the page (list-cursor.ts); the count is of `where` alone. */
      keyset?: WhereOptions;
      /** The count through a cache (list-cache.ts, ListCache.total): it runs only when the cache has no total. */
      total?: (count: () => Promise<number>) => Promise<number>;
      /** A search's matches (search-engine.ts): only their rows, `_srank` to order by. */
      join?: SearchMatch;
    } = {},
  ): { rows: Promise<Array<Record<string, unknown>>>; total: Promise<number> } {
    const { page, count, pageParams, countParams } = this.sql(c, where, order, limit, offset, options.keyset, options.join);
    if (page.includes('\u0000') || pageParams.some((p) => typeof p === 'string' && p.includes('\u0000')))
      throw new ValidationError('Text values must not contain NUL (\\u0000) characters');
    let rows: Promise<Array<Record<string, unknown>>>;
    let counted: () => Promise<Array<{ n: number | string }>>;
    if (this.sequelize.getDialect() !== 'sqlite') {
      rows = this.sequelize.query<Record<string, unknown>>(page, { replacements: pageParams, type: QueryTypes.SELECT });
      counted = () => this.sequelize.query<{ n: number | string }>(count, { replacements: countParams, type: QueryTypes.SELECT });
    } else {
      const db = this.connection();
      rows = db.then((d) => this.run(d, page, pageParams));
      counted = () => db.then((d) => this.run(d, count, countParams) as Promise<Array<{ n: number | string }>>);
    }
    const counting = () => counted().then((n) => Number(n[0]?.n ?? 0));
    const total = options.total ? options.total(counting) : counting();
    total.catch(() => undefined);
    return { rows, total };
  }

  /**
   * The rows of `ids` in the tenant (published ones only when `publishedOnly`), in no particular order: what populate
   * reads per target collection. One statement of a fixed text on SQLite (the ids as one JSON array, read with
   * json_each, so it stays prepared whatever their number), `IN (...)` on MariaDB.
   */
  async byIds(c: LoadedCollection, ids: string[], tenantId: string, publishedOnly: boolean): Promise<Array<Record<string, unknown>>> {
    if (!ids.length) return [];
    const qi = this.sequelize.getQueryInterface();
    const table = qi.quoteIdentifier(c.table);
    const status = publishedOnly ? ` AND ${qi.quoteIdentifier('status')} = 'published'` : '';
    if (this.sequelize.getDialect() !== 'sqlite')
      return this.driverSelect(`SELECT * FROM ${table} WHERE id IN (?) AND tenant_id = ?${status}`, [ids, tenantId]);
    const sql = `SELECT * FROM ${table} WHERE id IN (SELECT value FROM json_each(?)) AND tenant_id = ?${status}`;
    return this.run(await this.connection(), sql, [JSON.stringify(ids), tenantId]);
  }

  /**
   * A SELECT of string parameters sent straight to a pooled MariaDB connection (the driver expands an array into a
   * list of escaped values): Sequelize's query path adds about a tenth of a millisecond per statement (a stack
   * captured per query, the retry wrapper, copying every row), which populate pays once per target collection.
   * The rows are those Sequelize answers for a raw SELECT (the connection's own type casts apply). Sequelize's
   * `logging` option still sees the statement.
   */
  private async driverSelect(sql: string, params: Array<string | string[]>): Promise<Array<Record<string, unknown>>> {
    const target = this.sequelize as unknown as {
      options: { logging?: unknown };
      connectionManager: {
        getConnection(o: object): Promise<MariaDbConnection>;
        releaseConnection(c: MariaDbConnection): Promise<void> | void;
      };
    };
    const { logging } = target.options;
    if (typeof logging === 'function') (logging as (text: string) => void)(`Executing (default): ${sql}`);
    const manager = target.connectionManager;
    const connection = await manager.getConnection({ type: 'SELECT' });
    try {
      return [...(await connection.query(sql, params))];
    } finally {
      await manager.releaseConnection(connection);
    }
  }

  private async connection(): Promise<SqliteDatabase> {
    const manager = (this.sequelize as unknown as { connectionManager: { getConnection(o: object): Promise<SqliteDatabase> } })
      .connectionManager;
    const db = await manager.getConnection({});
    this.connections.add(db);
    return db;
  }

  private statement(db: SqliteDatabase, sql: string): Promise<SqliteStatement> {
    let byText = this.statements.get(db);
    if (!byText) this.statements.set(db, (byText = new Map()));
    let prepared = byText.get(sql);
    if (prepared) {
      byText.delete(sql); // most recently used last
      byText.set(sql, prepared);
      return prepared;
    }
    prepared = new Promise<SqliteStatement>((resolve, reject) => {
      const stmt = db.prepare(sql, (err) => (err ? reject(err) : resolve(stmt)));
    });
    prepared.catch(() => byText.delete(sql));
    byText.set(sql, prepared);
    if (byText.size > STATEMENTS_MAX) {
      const [oldest, old] = byText.entries().next().value!;
      byText.delete(oldest);
      void old.then((s) => s.finalize()).catch(() => undefined);
    }
    return prepared;
  }

  private async run(db: SqliteDatabase, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
    if (this.closed) throw new Error('The list reader is closed');
    const stmt = await this.statement(db, sql);
    return new Promise((resolve, reject) => {
      stmt.all(params, (err, rows) => {
        if (!err) return resolve(rows);
        // A statement that failed (the table changed or went) is prepared again next time.
        this.statements.get(db)?.delete(sql);
        void Promise.resolve(stmt.finalize()).catch(() => undefined);
        reject(err);
      });
    });
  }

  /** Finalizes the kept statements (before the connection closes: SQLite refuses to close with live statements). */
  async close(): Promise<void> {
    this.closed = true;
    const all: Array<Promise<SqliteStatement>> = [];
    for (const db of this.connections) {
      const byText = this.statements.get(db);
      if (byText) all.push(...byText.values());
      this.statements.delete(db);
    }
    this.connections.clear();
    await Promise.all(all.map((p) => p.then((s) => new Promise<void>((resolve) => s.finalize(() => resolve()))).catch(() => undefined)));
  }
}

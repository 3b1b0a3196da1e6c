import { createHash } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { insertRows } from '../../lib/db/insert-rows.js';
import type { CollectionDefinition } from './collection-schema.js';
import type { LoadedCollection } from './collections-service.js';
import type { Entry } from './entry-shape.js';
import type { EntryLocales } from './entry-locales.js';
import type { FieldDefinition } from './field-types.js';
import { searched } from './list-filter.js';
import { booleanQuery, fieldText, fts5Query, readTerm } from './search-text.js';

/**
 * Full-text search (docs/features/search.md). The contract a search engine meets (plugins/content/public.ts exports
 * it); the built-in one keeps the text of entries in the database itself: SQLite FTS5, MariaDB InnoDB FULLTEXT.
 */

/** What a list asks an engine: the matches of a term in a collection of a tenant, in a locale. */
export interface SearchRequest {
  collection: string;
  tenantId: string;
  /** The search term as the caller wrote it: words (prefixes) and "quoted phrases". */
  term: string;
  /** The asked locale then its fallbacks, the default locale left out (empty: the default locale). */
  chain: string[];
  /** The caller sees published entries only (a locale's version that is not published does not count). */
  publishedOnly: boolean;
}

/**
 * The matches: an SQL subquery of rows (`_sid`: entry id, `_srank`: lower is more relevant) that the list joins, or,
 * for an engine outside the database, the ranked ids (at most MATCH_IDS_MAX, best first).
 */
export type SearchMatch = { sql: string; params: unknown[] } | { ids: string[] };
export const MATCH_IDS_MAX = 1000;

/** A search engine: kept in step with every entry write (inside its transaction) and asked by lists. */
export interface SearchEngine {
  /** Brings these entries' index up to date (read through `transaction`, written inside it). */
  index(collection: string, tenantId: string, ids: string[], transaction?: Transaction): Promise<void>;
  /** Forgets these entries. */
  remove(collection: string, tenantId: string, ids: string[], transaction?: Transaction): Promise<void>;
  /** The matches, or null when the engine cannot answer this term (the list then compares substrings). */
  match(request: SearchRequest): Promise<SearchMatch | null>;
  /** Indexes a collection again when its searched fields changed since its index was made (or always: `force`). */
  rebuild(collection: string, force?: boolean): Promise<void>;
  /** Forgets a deleted collection. */
  drop(collection: string): Promise<void>;
}

/** A collection's option `search: { fields }` (names), else every text-like field (list-filter.ts `searched`). */
export function searchFields(c: CollectionDefinition): FieldDefinition[] {
  const named = c.search?.fields;
  if (named) return named.map((n) => c.fields.find((f) => f.name === n)).filter((f): f is FieldDefinition => !!f && searched(f));
  return c.fields.filter(searched);
}

const DOCS = 'content_search_docs';
const FTS = 'content_search_fts';
const STATE = 'content_search_state';
/** Entries read and indexed per transaction by a rebuild. */
const REBUILD_CHUNK = 500;
/** Bumped when what a document holds changes: every collection is indexed again. */
const FORMAT = 1;

/** What reads of entries the built-in engine needs (the content plugin's own). */
export interface SearchSource {
  collection(name: string): Promise<LoadedCollection | undefined>;
  readEntries(c: LoadedCollection, ids: string[], tenantId: string, transaction?: Transaction): Promise<Entry[]>;
  localised?: EntryLocales;
}

/** The built-in engine: one document per entry and locale in content_search_docs, searched by the database. */
export class SqlSearchEngine implements SearchEngine {
  private minWord: Promise<number> | null = null;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly source: SearchSource,
  ) {}

  private get sqlite(): boolean {
    return this.sequelize.getDialect() === 'sqlite';
  }

  async index(collection: string, tenantId: string, ids: string[], transaction?: Transaction): Promise<void> {
    if (!ids.length) return;
    const c = await this.source.collection(collection);
    await this.remove(collection, tenantId, ids, transaction);
    if (!c) return;
    const fields = searchFields(c);
    if (!fields.length) return;
    const entries = await this.source.readEntries(c, ids, tenantId, transaction);
    const rows: unknown[][] = entries.map((e) => [tenantId, collection, e._id, '', 1, bodyOf(fields, e)]);
    if (fields.some((f) => f.localized === true) && this.source.localised)
      rows.push(...(await this.localeRows(c, tenantId, entries, fields, transaction)));
    const insert = (tx: Transaction) =>
      insertRows(this.sequelize, DOCS, ['tenant_id', 'collection', 'entry_id', 'locale', 'published', 'body'], rows, tx);
    if (transaction) await insert(transaction);
    else await this.sequelize.transaction(insert);
  }

  /** One document per entry and locale it has a version in: the entry as read there (fallbacks filled in). */
  private async localeRows(c: LoadedCollection, tenantId: string, entries: Entry[], fields: FieldDefinition[], transaction?: Transaction) {
    const localised = this.source.localised!;
    const versions = await localised.versions(
      c,
      tenantId,
      entries.map((e) => e._id),
      transaction,
    );
    const byLocale = new Map<string, Entry[]>();
    for (const e of entries)
      for (const code of versions.get(e._id)?.keys() ?? []) {
        const list = byLocale.get(code) ?? [];
        list.push(structuredClone(e));
        byLocale.set(code, list);
      }
    const rows: unknown[][] = [];
    for (const [code, copies] of byLocale) {
      await localised.localise(c, copies, tenantId, code, false, transaction);
      for (const e of copies) {
        const published = versions.get(e._id)?.get(code)?.status === 'published' ? 1 : 0;
        rows.push([tenantId, c.name, e._id, code, published, bodyOf(fields, e)]);
      }
    }
    return rows;
  }

  async remove(collection: string, tenantId: string, ids: string[], transaction?: Transaction): Promise<void> {
    for (let i = 0; i < ids.length; i += REBUILD_CHUNK)
      await this.sequelize.query(`DELETE FROM ${DOCS} WHERE collection = :collection AND entry_id IN (:ids) AND tenant_id = :tenantId`, {
        replacements: { collection, tenantId, ids: ids.slice(i, i + REBUILD_CHUNK) },
        transaction,
      });
  }

  async match(request: SearchRequest): Promise<SearchMatch | null> {
    const term = readTerm(request.term);
    const c = await this.source.collection(request.collection);
    if (!c) return null;
    const expression = this.sqlite ? fts5Query(term) : booleanQuery(term, await this.minWordLength());
    if (!expression) return null;
    const localized = request.chain.length > 0 && searchFields(c).some((f) => f.localized === true);
    const locale = localized ? this.localeCondition(request.chain, request.publishedOnly) : { sql: `d.locale = ''`, params: [] };
    const where = `d.tenant_id = ? AND d.collection = ? AND ${locale.sql}`;
    if (this.sqlite)
      return {
        sql: `SELECT d.entry_id AS _sid, bm25(${FTS}) AS _srank FROM ${FTS} JOIN ${DOCS} d ON d.id = ${FTS}.rowid WHERE ${FTS} MATCH ? AND ${where}`,
        params: [expression, request.tenantId, request.collection, ...locale.params],
      };
    return {
      sql: `SELECT d.entry_id AS _sid, -(MATCH(d.body) AGAINST (? IN BOOLEAN MODE)) AS _srank FROM ${DOCS} d WHERE MATCH(d.body) AGAINST (? IN BOOLEAN MODE) AND ${where}`,
      params: [expression, expression, request.tenantId, request.collection, ...locale.params],
    };
  }

  /**
   * In a locale: the entry's document of the first locale of the chain it has a version in (published, for readers of
   * published entries), else its default one.
   */
  private localeCondition(chain: string[], publishedOnly: boolean) {
    const marks = chain.map(() => '?').join(', ');
    const order = chain.map((_, i) => `WHEN ? THEN ${i}`).join(' ');
    const published = publishedOnly ? ' AND e.published = 1' : '';
    return {
      sql: `d.locale = COALESCE((SELECT e.locale FROM ${DOCS} e WHERE e.collection = d.collection AND e.entry_id = d.entry_id AND e.tenant_id = d.tenant_id AND e.locale IN (${marks})${published} ORDER BY CASE e.locale ${order} END LIMIT 1), '')`,
      params: [...chain, ...chain],
    };
  }

  private minWordLength(): Promise<number> {
    this.minWord ??= this.sequelize
      .query<{ n: number }>('SELECT @@innodb_ft_min_token_size AS n', { type: QueryTypes.SELECT })
      .then((r) => Number(r[0]?.n ?? 3))
      .catch(() => 3);
    return this.minWord;
  }

  async rebuild(collection: string, force = false): Promise<void> {
    const c = await this.source.collection(collection);
    if (!c) return this.drop(collection);
    const signature = signatureOf(c);
    const [state] = await this.sequelize.query<{ signature: string }>(`SELECT signature FROM ${STATE} WHERE collection = :collection`, {
      replacements: { collection },
      type: QueryTypes.SELECT,
    });
    if (!force && state?.signature === signature) return;
    const qi = this.sequelize.getQueryInterface();
    const table = qi.quoteIdentifier(c.table);
    let after = '';
    for (;;) {
      // By id, a chunk per transaction (a rebuild never holds the writer long; writes between chunks index themselves).
      const rows = await this.sequelize.query<{ id: string; tenant_id: string }>(
        `SELECT id, tenant_id FROM ${table} WHERE id > :after ORDER BY id LIMIT ${REBUILD_CHUNK}`,
        { replacements: { after }, type: QueryTypes.SELECT },
      );
      if (!rows.length) break;
      const byTenant = new Map<string, string[]>();
      for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), String(r.id)]);
      await this.sequelize.transaction(async (transaction) => {
        for (const [tenantId, ids] of byTenant) await this.index(collection, tenantId, ids, transaction);
      });
      after = String(rows[rows.length - 1]!.id);
    }
    // Documents of entries that are gone (deleted while the index was made differently).
    await this.sequelize.query(`DELETE FROM ${DOCS} WHERE collection = :collection AND entry_id NOT IN (SELECT id FROM ${table})`, {
      replacements: { collection },
    });
    await this.sequelize.query(`DELETE FROM ${STATE} WHERE collection = :collection`, { replacements: { collection } });
    await this.sequelize.query(`INSERT INTO ${STATE} (collection, signature) VALUES (:collection, :signature)`, {
      replacements: { collection, signature },
    });
  }

  async drop(collection: string): Promise<void> {
    await this.sequelize.query(`DELETE FROM ${DOCS} WHERE collection = :collection`, { replacements: { collection } });
    await this.sequelize.query(`DELETE FROM ${STATE} WHERE collection = :collection`, { replacements: { collection } });
  }
}

/** The document of an entry: its slug and searched fields' text, one line each. */
function bodyOf(fields: FieldDefinition[], e: Entry): string {
  const parts = [String(e.slug ?? '')];
  for (const f of fields) {
    const text = fieldText(f, e[f.name]);
    if (text) parts.push(text);
  }
  return parts.join('\n');
}

/** What the index of a collection depends on: its table and searched fields (a change indexes it again). */
function signatureOf(c: LoadedCollection): string {
  const fields = searchFields(c).map((f) => [f.name, f.type, f.localized === true]);
  return createHash('sha256')
    .update(JSON.stringify([FORMAT, c.uid, c.table, fields]))
    .digest('base64url');
}

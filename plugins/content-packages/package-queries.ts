/**
 * The reads of a package being written: keyset pages of a selection, relation ids to sync ids, the
 * importers' links as external ids, media folder paths and the `/files/` paths of rich text. Each is its
 * own query (no transaction: a package is not a point-in-time snapshot of the whole selection).
 */
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { QueryTypes, type Sequelize } from 'sequelize';
import { columnName, fromColumn, type CollectionsService, type Entry, type LoadedCollection } from '../content/public.js';
import { quote, selectionWhere, type Where } from './export-selection.js';
import type { ExportSelection, PackageEntry } from './public.js';
import { richTextFilePaths } from './rich-text-files.js';

const FOLDER_CACHE_MAX = 10_000;
const FOLDER_DEPTH_MAX = 32;
/** Ids per IN (...) list. */
const IN_CHUNK = 500;

type Row = Record<string, unknown>;

/** Counts bytes and hashes them while they pass. */
export class HashCounter extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    cb(null, chunk);
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

/** An entry row as the entries API gives it (the fields the codec reads, and the system values). */
export function entryOf(c: LoadedCollection, r: Row): Entry {
  const out: Record<string, unknown> = { _id: String(r.id) };
  for (const f of c.fields) out[f.name] = fromColumn(f, r[columnName(f)]);
  return Object.assign(out, {
    slug: String(r.slug),
    status: String(r.status),
    syncId: String(r.sync_id),
    version: Number(r.version),
    createdAt: new Date(Number(r.created_at)).toISOString(),
    updatedAt: new Date(Number(r.updated_at)).toISOString(),
  }) as unknown as Entry;
}

export class PackageQueries {
  private hasImportLinks: boolean | null = null;
  private readonly folders = new Map<string, { name: string; parent: string | null }>();

  constructor(
    private readonly d: { sequelize: Sequelize; collections: CollectionsService; pageSize: number },
    private readonly tenantId: string,
    private readonly checkSignal: () => void,
  ) {}

  async importLinksExist(): Promise<boolean> {
    if (this.hasImportLinks === null) {
      try {
        const tables = (await this.d.sequelize.getQueryInterface().showAllTables()) as unknown[];
        this.hasImportLinks = tables.some((t) => (typeof t === 'string' ? t : (t as { tableName?: string })?.tableName) === 'import_links');
      } catch {
        this.hasImportLinks = false;
      }
    }
    return this.hasImportLinks;
  }

  /** Keyset pages of the rows of `table` matching `where` (pageSize at a time). */
  async *pages(table: string, where: Where, columns = '*'): AsyncGenerator<Row[]> {
    const { sequelize, pageSize } = this.d;
    let last: string | null = null;
    for (;;) {
      this.checkSignal();
      const rows: Row[] = await sequelize.query<Row>(
        `SELECT ${columns} FROM ${quote(sequelize, table)} WHERE ${where.sql}${last === null ? '' : ` AND ${quote(sequelize, 'id')} > ?`} ORDER BY ${quote(sequelize, 'id')} LIMIT ${pageSize}`,
        { type: QueryTypes.SELECT, replacements: last === null ? where.values : [...where.values, last] },
      );
      if (!rows.length) return;
      yield rows;
      if (rows.length < pageSize) return;
      last = String(rows[rows.length - 1]!.id);
    }
  }

  /** id -> sync id of these entries of a related collection (one query per IN chunk). */
  async syncIds(collection: string, ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const target = await this.d.collections.get(collection).catch(() => null);
    if (!target) return out;
    const { sequelize } = this.d;
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      const rows = await sequelize.query<{ id: string; sync_id: string }>(
        `SELECT ${quote(sequelize, 'id')}, ${quote(sequelize, 'sync_id')} FROM ${quote(sequelize, target.table)} WHERE ${quote(sequelize, 'tenant_id')} = ? AND ${quote(sequelize, 'id')} IN (?)`,
        { type: QueryTypes.SELECT, replacements: [this.tenantId, ids.slice(i, i + IN_CHUNK)] },
      );
      for (const r of rows) out.set(String(r.id), String(r.sync_id));
    }
    return out;
  }

  /** entry id -> the importers' links of these entries (the records they were imported from). */
  async externalIds(collection: string, ids: string[]): Promise<Map<string, NonNullable<PackageEntry['externalIds']>>> {
    const out = new Map<string, NonNullable<PackageEntry['externalIds']>>();
    if (!ids.length || !(await this.importLinksExist())) return out;
    const rows = await this.d.sequelize.query<{ entry_id: string; format: string; entity: string; external_id: string }>(
      'SELECT entry_id, format, entity, external_id FROM import_links WHERE tenant_id = ? AND collection = ? AND entry_id IN (?) ORDER BY format, entity, external_id',
      { type: QueryTypes.SELECT, replacements: [this.tenantId, collection, ids] },
    );
    for (const r of rows) {
      const list = out.get(String(r.entry_id)) ?? [];
      list.push({ format: String(r.format), entity: String(r.entity), id: String(r.external_id) });
      out.set(String(r.entry_id), list);
    }
    return out;
  }

  /** `a/b`: the folder's path from the root (names), or null. */
  async folderPath(id: string | null): Promise<string | null> {
    if (!id) return null;
    const names: string[] = [];
    let current: string | null = id;
    for (let depth = 0; current && depth < FOLDER_DEPTH_MAX; depth++) {
      let f = this.folders.get(current);
      if (!f) {
        const rows: Array<{ id: string; name: string; parent_id: string | null }> = await this.d.sequelize.query(
          'SELECT id, name, parent_id FROM media_folders WHERE tenant_id = ? AND id = ?',
          { type: QueryTypes.SELECT, replacements: [this.tenantId, current] },
        );
        if (!rows[0]) break;
        if (this.folders.size >= FOLDER_CACHE_MAX) this.folders.clear();
        f = { name: String(rows[0].name), parent: rows[0].parent_id == null ? null : String(rows[0].parent_id) };
        this.folders.set(current, f);
      }
      names.unshift(f.name);
      current = f.parent;
    }
    return names.length ? names.join('/') : null;
  }

  /** The storage paths the selected entries' rich-text fields refer to through `/files/` URLs (each once). */
  async richTextPaths(collections: LoadedCollection[], selection: ExportSelection): Promise<string[]> {
    const { sequelize } = this.d;
    const out = new Set<string>();
    for (const c of collections) {
      const cols = c.fields.filter((f) => f.type === 'richtext').map((f) => quote(sequelize, columnName(f)));
      if (!cols.length) continue;
      const where = selectionWhere(sequelize, c, this.tenantId, selection);
      const mentions = {
        sql: `${where.sql} AND (${cols.map((col) => `${col} LIKE ?`).join(' OR ')})`,
        values: [...where.values, ...cols.map(() => '%/files/%')],
      };
      for await (const rows of this.pages(c.table, mentions, [quote(sequelize, 'id'), ...cols].join(', ')))
        for (const r of rows)
          for (const f of c.fields) if (f.type === 'richtext') for (const p of richTextFilePaths(r[columnName(f)])) out.add(p);
    }
    return [...out];
  }
}

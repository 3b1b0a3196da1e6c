/**
 * Identities across environments: the link of a database resource (table cms_config_sync_links: its
 * syncId and the source system's id), the matching of files to database resources in the spec's order,
 * and the manual mappings that override it.
 */
import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { DbResource, ResourceType } from './resources.js';
import {
  canonical,
  derivedSyncId,
  MappingError,
  type ConfigMappings,
  type IdentityLink,
  type MatchLevel,
  type Pair,
  type SyncFile,
} from './sync-types.js';

/** The rows of cms_config_sync_links of one tenant. */
export class IdentityLinks {
  constructor(private readonly sequelize: () => Sequelize) {}

  async links(tenantId: string, types: ResourceType[], t?: Transaction): Promise<IdentityLink[]> {
    if (!types.length) return [];
    const rows = await this.sequelize().query<{ type: string; local_id: string; sync_id: string; external_id: string | null }>(
      `SELECT type, local_id, sync_id, external_id FROM cms_config_sync_links WHERE tenant_id = ? AND type IN (${types.map(() => '?').join(', ')}) ORDER BY type, local_id`,
      { replacements: [tenantId, ...types], type: QueryTypes.SELECT, transaction: t },
    );
    return rows.map((r) => ({ type: r.type as ResourceType, localId: r.local_id, syncId: r.sync_id, externalId: r.external_id ?? null }));
  }

  static linkOf(links: IdentityLink[], d: DbResource): IdentityLink | undefined {
    return links.find((l) => l.type === d.type && l.localId === d.id);
  }

  /** The syncId a database resource carries: its link's, else its own uuid (theme id, collection uid), else one derived from its id. */
  static syncIdOf(links: IdentityLink[], d: DbResource): string {
    return IdentityLinks.linkOf(links, d)?.syncId ?? d.uuid ?? derivedSyncId(d.type, d.id);
  }

  /**
   * Records (or moves) the identity of one resource: its syncId and the source's external id. A syncId or
   * external id is held by one resource of a type: another row holding it gives it up.
   */
  async link(tenantId: string, l: IdentityLink, t?: Transaction): Promise<void> {
    const q = (sql: string, replacements: unknown[]) => this.sequelize().query(sql, { replacements, transaction: t });
    await q('DELETE FROM cms_config_sync_links WHERE tenant_id = ? AND type = ? AND (local_id = ? OR sync_id = ?)', [
      tenantId,
      l.type,
      l.localId,
      l.syncId,
    ]);
    if (l.externalId)
      await q('DELETE FROM cms_config_sync_links WHERE tenant_id = ? AND type = ? AND external_id = ?', [tenantId, l.type, l.externalId]);
    await q('INSERT INTO cms_config_sync_links (tenant_id, type, local_id, sync_id, external_id, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
      tenantId,
      l.type,
      l.localId,
      l.syncId,
      l.externalId,
      Date.now(),
    ]);
  }

  async unlink(tenantId: string, type: ResourceType, localId: string, t?: Transaction): Promise<void> {
    await this.sequelize().query('DELETE FROM cms_config_sync_links WHERE tenant_id = ? AND type = ? AND local_id = ?', {
      replacements: [tenantId, type, localId],
      transaction: t,
    });
  }

  // ---- files and bundles ----

  /** Puts the links of one type back as they were (`moved`: a resource created again under a new own id). */
  async restore(tenantId: string, type: ResourceType, before: IdentityLink[], moved?: { from: string; to: string }): Promise<void> {
    await this.sequelize().query('DELETE FROM cms_config_sync_links WHERE tenant_id = ? AND type = ?', {
      replacements: [tenantId, type],
    });
    for (const l of before) await this.link(tenantId, { ...l, localId: l.localId === moved?.from ? moved.to : l.localId });
  }

  /** A new syncId for a resource whose own id equals one a created resource now takes (a file mapped to null). */
  async renew(tenantId: string, type: ResourceType, localId: string, t?: Transaction): Promise<void> {
    await this.link(tenantId, { type, localId, syncId: randomUUID(), externalId: null }, t);
  }
}

/** The file a mapping key names: `<type>/<file name>` as listed in the plan (`role/author.json`) or `<type>/<name>`. */
export function fileOfKey(files: SyncFile[], key: string): SyncFile | undefined {
  return files.find((f) => f.file === key) ?? files.find((f) => `${f.type}/${f.name}` === key);
}

/** A matched pair whose file and database resource have the same name and data. */
export function samePair(pair: Pair): boolean {
  return !!pair.file && !!pair.db && pair.file.name === pair.db.name && canonical(pair.file.data) === canonical(pair.db.data);
}

/**
 * Throws MappingError with the 400-worthy problems of the mappings of an input: a key naming no file, a
 * value naming no resource, two keys on one resource.
 */
export function checkMappings(files: SyncFile[], db: DbResource[], mappings: ConfigMappings): void {
  const entries = Object.entries(mappings);
  const issues: Array<{ path: string; message: string }> = [];
  const taken = new Map<string, string>();
  for (const [key, value] of entries) {
    const file = fileOfKey(files, key);
    if (!file) {
      issues.push({ path: `body.mappings.${key}`, message: `Mapping '${key}' names no file of the planned types` });
      continue;
    }
    if (value === null) continue;
    const target = db.find((d) => d.type === file.type && d.name === value);
    if (!target) {
      issues.push({
        path: `body.mappings.${key}`,
        message: `Mapping '${key}' names the ${file.type} '${value}', which is not in the database`,
      });
      continue;
    }
    const other = taken.get(`${file.type}\u0000${value}`);
    if (other)
      issues.push({ path: `body.mappings.${key}`, message: `Mappings '${other}' and '${key}' both name the ${file.type} '${value}'` });
    taken.set(`${file.type}\u0000${value}`, key);
  }
  if (issues.length) throw new MappingError(issues.map((i) => i.message).join('; '), issues);
}

/**
 * Matches files to database resources in the spec's order: (1) syncId (the file's uuid against the
 * resource's link, own uuid or derived id), (2) external id (the file's externalId against the id of
 * the source system recorded in the resource's link), (3) natural key (type + name), (4) a manual
 * mapping (which overrides 1-3; null = new). No candidate: new. Several distinct candidates and no
 * mapping: the pair carries them and the plan is blocked.
 */
export function matchFiles(
  files: SyncFile[],
  db: DbResource[],
  links: IdentityLink[],
  mappings: ConfigMappings = {},
): { pairs: Pair[]; duplicates: string[] } {
  const pairs: Pair[] = [];
  const used = new Set<DbResource>();
  const duplicates: string[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const key = `${file.type}\u0000${file.name}`;
    if (seen.has(key)) duplicates.push(`Two files name the ${file.type} '${file.name}' (${file.file})`);
    seen.add(key);
  }
  const mapped = new Map<SyncFile, DbResource | null>();
  for (const [key, value] of Object.entries(mappings)) {
    const file = fileOfKey(files, key);
    if (!file) continue;
    const target = value === null ? null : db.find((d) => d.type === file.type && d.name === value);
    if (target === undefined) continue;
    mapped.set(file, target);
    if (target) used.add(target);
  }
  const candidatesOf = (file: SyncFile) => {
    const out: Array<{ db: DbResource; level: MatchLevel }> = [];
    const add = (d: DbResource, level: MatchLevel) => {
      if (!out.some((c) => c.db === d)) out.push({ db: d, level });
    };
    const ofType = db.filter((d) => d.type === file.type);
    for (const d of ofType) if (IdentityLinks.syncIdOf(links, d) === file.uuid || d.uuid === file.uuid) add(d, 'syncId');
    if (file.externalId) for (const d of ofType) if (IdentityLinks.linkOf(links, d)?.externalId === file.externalId) add(d, 'externalId');
    for (const d of ofType) if (d.name === file.name) add(d, 'name');
    return out;
  };
  const all = files.map(candidatesOf);
  // A resource another file matches by syncId is that file's: it is no candidate of this file by a weaker key.
  const strong = new Map<DbResource, SyncFile>();
  files.forEach((f, i) => {
    if (mapped.has(f)) return;
    const first = all[i]!.find((c) => c.level === 'syncId');
    if (first && !strong.has(first.db)) strong.set(first.db, f);
  });
  files.forEach((file, i) => {
    if (mapped.has(file)) {
      const d = mapped.get(file);
      pairs.push(d ? { file, db: d, level: 'mapping' } : { file });
      return;
    }
    const candidates = all[i]!.filter((c) => !used.has(c.db) && (!strong.has(c.db) || strong.get(c.db) === file));
    if (candidates.length === 0) pairs.push({ file });
    else if (candidates.length === 1) {
      used.add(candidates[0]!.db);
      pairs.push({ file, db: candidates[0]!.db, level: candidates[0]!.level });
    } else {
      // Shown (status) against the strongest candidate; the plan is blocked until a mapping decides.
      used.add(candidates[0]!.db);
      pairs.push({ file, db: candidates[0]!.db, level: candidates[0]!.level, candidates });
    }
  });
  for (const d of db) if (!used.has(d)) pairs.push({ db: d });
  return { pairs, duplicates };
}

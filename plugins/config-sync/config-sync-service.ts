/**
 * Configuration promotion: the sync files under `<dataPath>/config/sync/` (tenant `default`; another
 * tenant under `<dataPath>/config/sync/tenants/<tenantId>/`), one file per resource at
 * `<type>/<encodeURIComponent(name)>.json` holding `{uuid, type, name, checksum, data}`, where checksum is
 * the SHA-256 (hex) of the canonical JSON (safe-stable-stringify: keys sorted, no spaces) of `data`, and
 * `externalId` the resource's own id in the exporting database. A bundle (GET/POST /api/config/bundle)
 * carries the same entries in one JSON document. Identities across environments live in
 * cms_config_sync_links (see migrations.ts).
 * The service exports, diffs (status), drafts plans, applies one operation and verifies; the data-ops
 * engine runs the lifecycle around it (see domain.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'safe-stable-stringify';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { DataOperation, PlanDraft, SafetyMode, StoredPlan, Undo, VerifyResult } from '../data-ops/public.js';
import { RESOURCE_TYPES, type DbResource, type ResourceAdapter, type ResourceType } from './resources.js';

/** Prefix of a one-collection read grant (content plugin's public access): `content:read:<collection>`. */
const COLLECTION_READ = 'content:read:';

export const canonical = (value: unknown): string => stringify(value) ?? 'null';
export const checksumOf = (data: unknown): string => createHash('sha256').update(canonical(data)).digest('hex');

/** The `format` member of a configuration bundle (GET/POST /api/config/bundle). */
export const BUNDLE_FORMAT = 'cms-config-bundle';
/** An uploaded bundle can be planned against for one hour. */
export const BUNDLE_TTL_MS = 60 * 60 * 1000;
/** The largest bundle an upload may carry. */
export const BUNDLE_MAX_BYTES = 16 * 1048576;
/** At most this many resources in one bundle. */
const BUNDLE_MAX_FILES = 10_000;

export interface SyncFile {
  uuid: string;
  type: ResourceType;
  name: string;
  checksum: string;
  data: Record<string, unknown>;
  /** The resource's own id in the system that exported it (see DbResource.id); absent in older files. */
  externalId?: string;
  /** Path relative to the sync folder (`<type>/<encoded name>.json`); a bundle entry gets the same path. */
  file: string;
  /** Edited by hand on purpose: the file's checksum was removed (null or ""), so no checksum is checked. */
  unsealed?: boolean;
}

export interface FileProblem {
  file: string;
  problem: string;
}

export type ItemState = 'same' | 'changed' | 'onlyInDatabase' | 'onlyInFiles';

/** `<type>/<file name>` (or `<type>/<name>`) -> a database resource's name of that type, or null (= new). */
export type ConfigMappings = Record<string, string | null>;

export interface ConfigInput {
  types: ResourceType[];
  /** Plan against an uploaded bundle instead of the files on disk. */
  uploadId?: string;
  mappings?: ConfigMappings;
}

/** What one operation of a config plan carries (stored with the plan; never a secret: private settings are never read). */
export interface ConfigPayload {
  uuid: string;
  name: string;
  /** The source system's id of the resource (stored in the identity link on create/update). */
  externalId?: string | null;
  /** The database resource's current name (update/delete). */
  dbName?: string;
  /** The database resource's own id (theme id) for update/delete. */
  dbUuid?: string | null;
  /** The database resource's own id (DbResource.id) for update/delete. */
  dbId?: string;
  checksum?: string;
  data?: Record<string, unknown>;
}

/** How a file was matched to a database resource. */
type MatchLevel = 'syncId' | 'externalId' | 'name' | 'mapping';

interface Pair {
  file?: SyncFile;
  db?: DbResource;
  level?: MatchLevel;
  /** Several database candidates and no mapping: the plan is blocked until a mapping resolves it. */
  candidates?: Array<{ db: DbResource; level: MatchLevel }>;
}

/** The identity row of one database resource (table cms_config_sync_links). */
export interface IdentityLink {
  type: ResourceType;
  localId: string;
  syncId: string;
  externalId: string | null;
}

/** Where the files of a plan or a status come from: the sync folder on disk or an uploaded bundle. */
export interface FileSource {
  files: SyncFile[];
  problems: FileProblem[];
  /** Prefix of the file paths in messages: `config/sync/` or `bundle:`. */
  label: string;
}

export interface BundleFile {
  uuid: string;
  type: ResourceType;
  name: string;
  checksum: string;
  externalId?: string;
  data: Record<string, unknown>;
}

export interface Bundle {
  format: typeof BUNDLE_FORMAT;
  version: 1;
  files: BundleFile[];
}

export class BundleError extends Error {}
export class MappingError extends Error {
  constructor(
    message: string,
    readonly issues: Array<{ path: string; message: string }>,
  ) {
    super(message);
  }
}
export class UploadNotFound extends Error {}

const safeName = (name: string) => encodeURIComponent(name).replace(/\./g, '%2E') + '.json';

/** A syncId derived from the type and own id, for a resource that never had one (stable, uuid-shaped). */
export const derivedSyncId = (type: string, id: string): string => {
  const h = createHash('sha256').update(`config-sync\u0000${type}\u0000${id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export class ConfigSyncService {
  constructor(
    private readonly dataPath: string,
    private readonly adapters: Record<ResourceType, ResourceAdapter>,
    private readonly sequelize: () => Sequelize,
  ) {}

  /** The sync folder of a tenant. */
  folder(tenantId: string): string {
    const base = join(this.dataPath, 'config', 'sync');
    if (!/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(tenantId)) throw new Error(`Unexpected tenant id '${tenantId}'`);
    return tenantId === 'default' ? base : join(base, 'tenants', tenantId);
  }

  /** The resource types this instance can sync (settings and the dashboard layout need the setup plugin). */
  types(): ResourceType[] {
    return RESOURCE_TYPES.filter((t) => this.adapters[t].available());
  }

  adapter(type: ResourceType): ResourceAdapter {
    return this.adapters[type];
  }

  async readDatabase(tenantId: string, types: ResourceType[]): Promise<DbResource[]> {
    const out: DbResource[] = [];
    for (const type of types) out.push(...(await this.adapters[type].read(tenantId)));
    return out;
  }

  // ---- identity links (cms_config_sync_links) ----

  async links(tenantId: string, types: ResourceType[], t?: Transaction): Promise<IdentityLink[]> {
    if (!types.length) return [];
    const rows = await this.sequelize().query<{ type: string; local_id: string; sync_id: string; external_id: string | null }>(
      `SELECT type, local_id, sync_id, external_id FROM cms_config_sync_links WHERE tenant_id = ? AND type IN (${types.map(() => '?').join(', ')}) ORDER BY type, local_id`,
      { replacements: [tenantId, ...types], type: QueryTypes.SELECT, transaction: t },
    );
    return rows.map((r) => ({ type: r.type as ResourceType, localId: r.local_id, syncId: r.sync_id, externalId: r.external_id ?? null }));
  }

  private static linkOf(links: IdentityLink[], d: DbResource): IdentityLink | undefined {
    return links.find((l) => l.type === d.type && l.localId === d.id);
  }

  /** The syncId a database resource carries: its link's, else its own uuid (theme id, collection uid), else one derived from its id. */
  static syncIdOf(links: IdentityLink[], d: DbResource): string {
    return ConfigSyncService.linkOf(links, d)?.syncId ?? d.uuid ?? derivedSyncId(d.type, d.id);
  }

  /**
   * Records (or moves) the identity of one resource: its syncId and the source's external id. A syncId or
   * external id is held by one resource of a type: another row holding it gives it up.
   */
  private async link(tenantId: string, l: IdentityLink, t?: Transaction): Promise<void> {
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

  private async unlink(tenantId: string, type: ResourceType, localId: string, t?: Transaction): Promise<void> {
    await this.sequelize().query('DELETE FROM cms_config_sync_links WHERE tenant_id = ? AND type = ? AND local_id = ?', {
      replacements: [tenantId, type, localId],
      transaction: t,
    });
  }

  // ---- files and bundles ----

  /** Checks one parsed file or bundle entry; a problem string or the file. */
  private parseEntry(parsed: any, file: string, type: ResourceType): SyncFile | string {
    if (
      !parsed ||
      typeof parsed !== 'object' ||
      typeof parsed.uuid !== 'string' ||
      !parsed.uuid ||
      parsed.uuid.length > 64 ||
      typeof parsed.name !== 'string' ||
      !parsed.name ||
      (typeof parsed.checksum !== 'string' && parsed.checksum !== null && parsed.checksum !== undefined) ||
      typeof parsed.data !== 'object' ||
      parsed.data === null ||
      Array.isArray(parsed.data)
    )
      return 'must be {uuid, type, name, checksum, data, externalId?}';
    if (parsed.externalId !== undefined && (typeof parsed.externalId !== 'string' || !parsed.externalId || parsed.externalId.length > 191))
      return 'externalId must be a non-empty string of at most 191 characters';
    if (parsed.type !== type) return `has type '${String(parsed.type)}' but lies in the folder '${type}'`;
    // A hand edit is declared by removing the checksum; a file whose checksum no longer matches was changed
    // without saying so (tampering, a bad merge) and blocks.
    const unsealed = parsed.checksum === null || parsed.checksum === undefined || parsed.checksum === '';
    if (!unsealed && checksumOf(parsed.data) !== parsed.checksum)
      return 'checksum does not match its data: the file was changed after export without removing its checksum (to accept a hand edit, set "checksum" to null)';
    const invalid = this.adapters[type].check(parsed.data);
    if (invalid) return invalid;
    if (type === 'dashboard' && parsed.name !== 'default-layout') return "the dashboard resource is named 'default-layout'";
    return {
      uuid: parsed.uuid,
      type,
      name: parsed.name,
      checksum: unsealed ? checksumOf(parsed.data) : parsed.checksum,
      data: parsed.data,
      ...(parsed.externalId ? { externalId: parsed.externalId as string } : {}),
      file,
      ...(unsealed ? { unsealed: true } : {}),
    };
  }

  /** Reads the sync files of the given types; unreadable or tampered files are problems, never thrown. */
  readFiles(tenantId: string, types: ResourceType[]): FileSource {
    const files: SyncFile[] = [];
    const problems: FileProblem[] = [];
    const root = this.folder(tenantId);
    for (const type of types) {
      const dir = join(root, type);
      if (!existsSync(dir)) continue;
      for (const entry of readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()) {
        const file = `${type}/${entry}`;
        let parsed: any;
        try {
          parsed = JSON.parse(readFileSync(join(dir, entry), 'utf8'));
        } catch {
          problems.push({ file, problem: 'is not valid JSON' });
          continue;
        }
        const checked = this.parseEntry(parsed, file, type);
        if (typeof checked === 'string') problems.push({ file, problem: checked });
        else files.push(checked);
      }
    }
    return { files, problems, label: 'config/sync/' };
  }

  /**
   * Checks a bundle's shape (throws BundleError when it is not a bundle at all); each entry is checked like
   * a file on disk (shape, type, checksum, data): entries that fail are problems (they block a plan).
   */
  checkBundle(value: unknown): { bundle: Bundle; problems: FileProblem[] } {
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new BundleError('The bundle must be a JSON object {files: [...]}');
    const raw = value as Record<string, unknown>;
    if (raw.format !== undefined && raw.format !== BUNDLE_FORMAT) throw new BundleError(`The bundle's format must be '${BUNDLE_FORMAT}'`);
    if (raw.version !== undefined && raw.version !== 1) throw new BundleError('The bundle has an unsupported version (expected 1)');
    if (!Array.isArray(raw.files)) throw new BundleError('The bundle must have a files array');
    if (raw.files.length > BUNDLE_MAX_FILES) throw new BundleError(`The bundle has more than ${BUNDLE_MAX_FILES} files`);
    const problems: FileProblem[] = [];
    const files: BundleFile[] = [];
    raw.files.forEach((entry: any, i: number) => {
      const type = entry?.type;
      if (!RESOURCE_TYPES.includes(type)) {
        problems.push({ file: `files[${i}]`, problem: `has an unknown type '${String(type)}'` });
        return;
      }
      const path = typeof entry.name === 'string' && entry.name ? `${type}/${safeName(entry.name)}` : `files[${i}]`;
      const checked = this.parseEntry(entry, path, type as ResourceType);
      if (typeof checked === 'string') problems.push({ file: path, problem: checked });
      else {
        const { file: _file, ...rest } = checked;
        files.push(rest);
      }
    });
    return { bundle: { format: BUNDLE_FORMAT, version: 1, files }, problems };
  }

  /** The database state of a tenant as a bundle (GET /api/config/bundle): the same entries the files would hold. */
  async bundle(tenantId: string, types = this.types()): Promise<Bundle> {
    const db = await this.readDatabase(tenantId, types);
    const links = await this.links(tenantId, types);
    return {
      format: BUNDLE_FORMAT,
      version: 1,
      files: db.map((d) => {
        const data = JSON.parse(canonical(d.data)) as Record<string, unknown>;
        return {
          uuid: ConfigSyncService.syncIdOf(links, d),
          type: d.type,
          name: d.name,
          checksum: checksumOf(data),
          externalId: d.id,
          data,
        };
      }),
    };
  }

  /** Stores an uploaded bundle (valid entries and problems) for BUNDLE_TTL_MS; expired uploads are removed. */
  async storeUpload(
    tenantId: string,
    userId: string | null,
    value: unknown,
    size: number,
  ): Promise<{ uploadId: string; valid: boolean; problems: FileProblem[]; files: number; expiresAt: string }> {
    const { bundle, problems } = this.checkBundle(value);
    const now = Date.now();
    const uploadId = randomUUID();
    await this.sequelize().query('DELETE FROM cms_config_sync_uploads WHERE expires_at < ?', { replacements: [now] });
    await this.sequelize().query(
      'INSERT INTO cms_config_sync_uploads (upload_id, tenant_id, user_id, bundle, size, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      { replacements: [uploadId, tenantId, userId, JSON.stringify({ bundle, problems }), size, now, now + BUNDLE_TTL_MS] },
    );
    return {
      uploadId,
      valid: problems.length === 0,
      problems,
      files: bundle.files.length,
      expiresAt: new Date(now + BUNDLE_TTL_MS).toISOString(),
    };
  }

  /** The files of an uploaded bundle, like readFiles (throws UploadNotFound for an unknown, expired or foreign upload). */
  async readUpload(tenantId: string, uploadId: string, types: ResourceType[]): Promise<FileSource> {
    const rows = await this.sequelize().query<{ bundle: string }>(
      'SELECT bundle FROM cms_config_sync_uploads WHERE upload_id = ? AND tenant_id = ? AND expires_at >= ?',
      { replacements: [uploadId, tenantId, Date.now()], type: QueryTypes.SELECT },
    );
    if (!rows.length) throw new UploadNotFound(`No bundle upload '${uploadId}' (unknown or expired)`);
    const stored = JSON.parse(rows[0]!.bundle) as { bundle: Bundle; problems: FileProblem[] };
    const files = stored.bundle.files.filter((f) => types.includes(f.type)).map((f) => ({ ...f, file: `${f.type}/${safeName(f.name)}` }));
    const problems = stored.problems.filter((p) => {
      const type = p.file.split('/')[0] as ResourceType;
      return !RESOURCE_TYPES.includes(type) || types.includes(type);
    });
    return { files, problems, label: 'bundle:' };
  }

  /** The files of an input: the upload when it names one, else the sync folder. */
  async source(tenantId: string, input: Pick<ConfigInput, 'types' | 'uploadId'>): Promise<FileSource> {
    return input.uploadId ? this.readUpload(tenantId, input.uploadId, input.types) : this.readFiles(tenantId, input.types);
  }

  // ---- matching ----

  /** The file a mapping key names: `<type>/<file name>` as listed in the plan (`role/author.json`) or `<type>/<name>`. */
  private static fileOfKey(files: SyncFile[], key: string): SyncFile | undefined {
    return files.find((f) => f.file === key) ?? files.find((f) => `${f.type}/${f.name}` === key);
  }

  /** 400-worthy problems of the mappings of an input (a key naming no file, a value naming no resource, two keys on one resource). */
  async checkMappings(tenantId: string, input: ConfigInput): Promise<void> {
    const entries = Object.entries(input.mappings ?? {});
    if (!entries.length) return;
    const { files } = await this.source(tenantId, input);
    const db = await this.readDatabase(tenantId, input.types);
    const issues: Array<{ path: string; message: string }> = [];
    const taken = new Map<string, string>();
    for (const [key, value] of entries) {
      const file = ConfigSyncService.fileOfKey(files, key);
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
  private match(
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
      const file = ConfigSyncService.fileOfKey(files, key);
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
      for (const d of ofType) if (ConfigSyncService.syncIdOf(links, d) === file.uuid || d.uuid === file.uuid) add(d, 'syncId');
      if (file.externalId)
        for (const d of ofType) if (ConfigSyncService.linkOf(links, d)?.externalId === file.externalId) add(d, 'externalId');
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

  private static same(pair: Pair): boolean {
    return !!pair.file && !!pair.db && pair.file.name === pair.db.name && canonical(pair.file.data) === canonical(pair.db.data);
  }

  /**
   * Writes one file per database resource, with the resource's own id as `externalId`; keeps each existing
   * file's uuid (and records it as the resource's syncId); removes files of resources that are gone.
   */
  async export(tenantId: string, types = this.types()): Promise<{ written: number; path: string; removed: number }> {
    const root = this.folder(tenantId);
    const db = await this.readDatabase(tenantId, types);
    const links = await this.links(tenantId, types);
    let written = 0;
    let removed = 0;
    for (const type of types) {
      const dir = join(root, type);
      mkdirSync(dir, { recursive: true });
      const existing = new Map<string, string>();
      for (const entry of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        try {
          const parsed = JSON.parse(readFileSync(join(dir, entry), 'utf8'));
          if (typeof parsed?.uuid === 'string' && parsed.uuid && parsed.uuid.length <= 64) existing.set(entry, parsed.uuid);
        } catch {
          // an unreadable file is replaced
        }
      }
      const keep = new Set<string>();
      for (const r of db.filter((d) => d.type === type)) {
        const entry = safeName(r.name);
        keep.add(entry);
        const data = JSON.parse(canonical(r.data)) as Record<string, unknown>;
        const own = ConfigSyncService.syncIdOf(links, r);
        const uuid = existing.get(entry) ?? own;
        if (uuid !== own) {
          // The file's uuid is this resource's syncId from now on (the bundle download then carries the same).
          await this.link(tenantId, {
            type,
            localId: r.id,
            syncId: uuid,
            externalId: ConfigSyncService.linkOf(links, r)?.externalId ?? null,
          });
        }
        const body = { uuid, type, name: r.name, externalId: r.id, checksum: checksumOf(data), data };
        const target = join(dir, entry);
        const tmp = `${target}.${process.pid}.tmp`;
        writeFileSync(tmp, `${JSON.stringify(body, null, 2)}\n`);
        renameSync(tmp, target);
        written++;
      }
      for (const entry of readdirSync(dir)) {
        if (entry.endsWith('.json') && !keep.has(entry)) {
          rmSync(join(dir, entry), { force: true });
          removed++;
        }
      }
    }
    return { written, path: root, removed };
  }

  /** Drift between the files (or an uploaded bundle) and the database, per resource. */
  async status(tenantId: string, types = this.types(), uploadId?: string) {
    const { files, problems } = await this.source(tenantId, { types, uploadId });
    const db = await this.readDatabase(tenantId, types);
    const { pairs } = this.match(files, db, await this.links(tenantId, types));
    const items: Array<{ type: string; name: string; state: ItemState }> = pairs.map((p) => ({
      type: (p.file ?? p.db)!.type,
      name: (p.db ?? p.file)!.name,
      state: !p.db ? 'onlyInFiles' : !p.file ? 'onlyInDatabase' : ConfigSyncService.same(p) ? 'same' : 'changed',
    }));
    // A file that cannot be read or was tampered with is drift too: its resource counts as changed (or only in files).
    for (const problem of problems) {
      const [type, entry = ''] = problem.file.split('/') as [ResourceType, string?];
      const name = decodeURIComponent(entry.replace(/\.json$/, ''));
      const item = items.find((i) => i.type === type && i.name === name);
      if (item) item.state = item.state === 'onlyInDatabase' ? 'changed' : item.state;
      else if (RESOURCE_TYPES.includes(type)) items.push({ type, name, state: 'onlyInFiles' });
    }
    items.sort(
      (a, b) =>
        RESOURCE_TYPES.indexOf(a.type as ResourceType) - RESOURCE_TYPES.indexOf(b.type as ResourceType) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    const count = (s: ItemState) => items.filter((i) => i.state === s).length;
    const summary = {
      same: count('same'),
      changed: count('changed'),
      onlyInDatabase: count('onlyInDatabase'),
      onlyInFiles: count('onlyInFiles'),
    };
    return { inSync: summary.changed + summary.onlyInDatabase + summary.onlyInFiles === 0, summary, items };
  }

  /** Resource types with their counts in the database and in the files. */
  async resources(tenantId: string) {
    const all = this.types();
    const db = await this.readDatabase(tenantId, all);
    const { files } = this.readFiles(tenantId, all);
    return RESOURCE_TYPES.map((type) => ({
      type,
      label: this.adapters[type].label,
      available: all.includes(type),
      applied: this.adapters[type].readOnlyReason === null,
      count: db.filter((d) => d.type === type).length,
      files: files.filter((f) => f.type === type).length,
    }));
  }

  /** The hash of the database side (resources and their identity links) of the resources this input touches. */
  async snapshot(tenantId: string, input: ConfigInput): Promise<string> {
    const db = await this.readDatabase(tenantId, input.types);
    const links = await this.links(tenantId, input.types);
    return createHash('sha256')
      .update(canonical(db.map((d) => ({ type: d.type, name: d.name, uuid: d.uuid, data: d.data }))))
      .update(canonical(links))
      .digest('hex');
  }

  /** Diffs the files against the database in a mode; no mutation. */
  async plan(
    tenantId: string,
    input: ConfigInput,
    mode: SafetyMode,
    knownPermissions: Set<string>,
  ): Promise<Omit<PlanDraft, 'targetHash'>> {
    const { files, problems, label } = await this.source(tenantId, input);
    const db = await this.readDatabase(tenantId, input.types);
    const { pairs, duplicates } = this.match(files, db, await this.links(tenantId, input.types), input.mappings);
    const blockedReasons = [...problems.map((p) => `${label}${p.file}: ${p.problem}`), ...duplicates];
    const warnings: PlanDraft['warnings'] = [];
    const creates: DataOperation<ConfigPayload>[] = [];
    const updates: DataOperation<ConfigPayload>[] = [];
    const deletes: DataOperation<ConfigPayload>[] = [];
    const skips: DataOperation<ConfigPayload>[] = [];
    const item = (type: string, name: string) => `${type}:${name}`;
    const skip = (type: ResourceType, name: string, message: string) => {
      skips.push({ action: 'skip', type, target: name, count: 1, payload: { uuid: '', name } });
      warnings.push({ message, item: item(type, name) });
    };
    const fromFile = (f: SyncFile, db?: DbResource): ConfigPayload => ({
      uuid: f.uuid,
      name: f.name,
      externalId: f.externalId ?? null,
      checksum: f.checksum,
      data: f.data,
      ...(db ? { dbName: db.name, dbUuid: db.uuid, dbId: db.id } : {}),
    });
    const fromDb = (d: DbResource): ConfigPayload => ({ uuid: d.uuid ?? '', name: d.name, dbName: d.name, dbUuid: d.uuid, dbId: d.id });

    // The read grant of one collection (`content:read:<collection>`, what the Public access switch of a collection
    // writes into the guest role) is known when the collection is in this database or arrives with these files.
    let collections: Set<string> | null = null;
    const isCollectionRead = async (permission: string) => {
      if (!permission.startsWith(COLLECTION_READ)) return false;
      collections ??= new Set([
        ...files.filter((f) => f.type === 'collection').map((f) => f.name),
        ...(await this.readDatabase(tenantId, ['collection'])).map((d) => d.name),
      ]);
      return collections.has(permission.slice(COLLECTION_READ.length));
    };
    for (const f of files) {
      if (f.unsealed)
        warnings.push({ message: `${label}${f.file} was edited by hand (no checksum): review its changes`, item: item(f.type, f.name) });
      if (f.type === 'role') {
        const unknown: string[] = [];
        for (const p of f.data.permissions as string[]) if (!knownPermissions.has(p) && !(await isCollectionRead(p))) unknown.push(p);
        if (unknown.length)
          warnings.push({
            message: `Role '${f.name}' names permissions this instance does not know: ${unknown.join(', ')}`,
            item: item('role', f.name),
          });
      }
    }
    const mappingHint = (f: SyncFile) => `"mappings": {"${f.file}": "<${f.type} name>" | null}`;
    // Several candidates: listed in the warnings, blocked until a mapping decides.
    for (const p of pairs) {
      if (!p.file || !p.candidates) continue;
      const list = p.candidates.map((c) => `'${c.db.name}' (by ${c.level})`).join(', ');
      warnings.push({
        message: `${label}${p.file.file} matches several ${p.file.type}s: ${list}; give a mapping (${mappingHint(p.file)}; null = new)`,
        item: item(p.file.type, p.file.name),
      });
      blockedReasons.push(`${label}${p.file.file}: several database candidates (${list}): needs a mapping`);
    }
    // Names a create or a rename would take from another database resource (e.g. a resource matched by syncId renamed onto another).
    for (const p of pairs) {
      if (!p.file || p.candidates || (p.db && p.file.name === p.db.name)) continue;
      const clash = pairs.find((o) => o !== p && o.db && o.db.type === p.file!.type && o.db.name === p.file!.name);
      if (!clash) continue;
      if (p.db)
        blockedReasons.push(
          `${label}${p.file.file}: renames the ${p.db.type} '${p.db.name}' to '${p.file.name}', which another ${p.db.type} has: needs a mapping (${mappingHint(p.file)})`,
        );
      else
        blockedReasons.push(
          `${label}${p.file.file}: creates the ${p.file.type} '${p.file.name}', which another ${p.file.type} has: needs a mapping (${mappingHint(p.file)})`,
        );
    }

    for (const p of pairs) {
      const type = (p.file ?? p.db)!.type;
      const adapter = this.adapters[type];
      const name = (p.file ?? p.db)!.name;
      if (p.file && p.db && ConfigSyncService.same(p)) {
        // Schemas outside the transaction (collections) are never dropped and created again: replace keeps them.
        if (mode === 'replace' && !p.db.protectedReason && adapter.readOnlyReason === null && !adapter.outsideTransaction) {
          deletes.push({ action: 'delete', type, target: p.db.name, count: 1, payload: fromDb(p.db) });
          creates.push({ action: 'create', type, target: name, count: 1, payload: fromFile(p.file) });
        }
        continue;
      }
      if (adapter.readOnlyReason !== null) {
        if (p.file && !p.db) skip(type, name, `The ${type} '${name}' exists only in the files: ${adapter.readOnlyReason}`);
        else if (p.file && p.db && mode !== 'add')
          skip(type, name, `The ${type} '${name}' differs from its file: ${adapter.readOnlyReason}`);
        else if (!p.file && p.db && (mode === 'mirror' || mode === 'replace'))
          skip(type, name, `The ${type} '${name}' exists only in the database: ${adapter.readOnlyReason}`);
        continue;
      }
      if (p.file && !p.db) {
        creates.push({ action: 'create', type, target: name, count: 1, payload: fromFile(p.file) });
      } else if (p.file && p.db) {
        const issue = mode === 'add' ? null : (adapter.updateIssue?.(p.db, p.file.name, p.file.data) ?? null);
        if (mode === 'add') skip(type, name, `The ${type} '${p.db.name}' differs from its file; mode add never updates`);
        else if (issue) blockedReasons.push(`${label}${p.file.file}: ${issue}`);
        else if (mode === 'replace' && !p.db.protectedReason && !adapter.outsideTransaction) {
          deletes.push({ action: 'delete', type, target: p.db.name, count: 1, payload: fromDb(p.db) });
          creates.push({ action: 'create', type, target: name, count: 1, payload: fromFile(p.file) });
        } else updates.push({ action: 'update', type, target: name, count: 1, payload: fromFile(p.file, p.db) });
      } else if (p.db && (mode === 'mirror' || mode === 'replace')) {
        if (p.db.protectedReason)
          skip(type, p.db.name, `The ${type} '${p.db.name}' is not in the files but is kept: ${p.db.protectedReason}`);
        else deletes.push({ action: 'delete', type, target: p.db.name, count: 1, payload: fromDb(p.db) });
      }
    }
    const order = (ops: DataOperation[]) =>
      ops.sort(
        (a, b) =>
          RESOURCE_TYPES.indexOf(a.type as ResourceType) - RESOURCE_TYPES.indexOf(b.type as ResourceType) ||
          (a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
      );
    order(creates);
    order(updates);
    order(skips);
    ConfigSyncService.relationOrder(creates);
    // DDL operations run before the engine's transaction (and are undone by the opposite change on failure).
    for (const op of [...creates, ...updates, ...deletes])
      if (this.adapters[op.type as ResourceType]?.outsideTransaction) op.outsideTransaction = true;
    // Deletes in reverse dependency order; first for replace (the existing data is dropped first), last for mirror.
    const dels = order(deletes).reverse();
    const operations = mode === 'replace' ? [...dels, ...creates, ...updates, ...skips] : [...creates, ...updates, ...dels, ...skips];
    return { operations, warnings, blockedReasons };
  }

  /**
   * Collections created in one plan: a collection whose relation field targets another created one comes
   * after it (the collections service checks relation targets exist). Stable otherwise.
   */
  private static relationOrder(creates: DataOperation<ConfigPayload>[]): void {
    const pending = creates.filter((o) => o.type === 'collection');
    if (pending.length < 2) return;
    const names = new Set(pending.map((o) => o.payload!.name));
    const targets = (o: DataOperation<ConfigPayload>) =>
      ((o.payload!.data?.fields as Array<{ type?: string; collection?: string }>) ?? [])
        .filter((f) => f.type === 'relation' && f.collection && f.collection !== o.payload!.name && names.has(f.collection))
        .map((f) => f.collection!);
    const sorted: DataOperation<ConfigPayload>[] = [];
    const placed = new Set<string>();
    while (pending.length) {
      const i = pending.findIndex((o) => targets(o).every((n) => placed.has(n)));
      const next = pending.splice(i === -1 ? 0 : i, 1)[0]!;
      sorted.push(next);
      placed.add(next.payload!.name);
    }
    const start = creates.findIndex((o) => o.type === 'collection');
    creates.splice(start, sorted.length, ...sorted);
  }

  /**
   * Applies one operation inside the engine's transaction; caches are dropped after commit. An operation
   * of a type whose changes cannot run in the transaction (collections: DDL) is called without one
   * (outsideTransaction) and answers its undo: the opposite schema change plus the identity links as before.
   */
  async apply(tenantId: string, op: DataOperation, t?: Transaction): Promise<Undo | void> {
    if (op.action === 'skip') return;
    const type = op.type as ResourceType;
    const adapter = this.adapters[type];
    if (!adapter) throw new Error(`Unknown resource type '${op.type}'`);
    if (adapter.outsideTransaction) return this.applyOutside(tenantId, op, adapter);
    const payload = op.payload as ConfigPayload;
    const current = async () => {
      const db = await adapter.read(tenantId);
      const found = db.find((d) => (payload.dbUuid && d.uuid === payload.dbUuid) || (!payload.dbUuid && d.name === payload.dbName));
      if (!found) throw new Error(`The ${type} '${payload.dbName}' is no longer in the database`);
      return found;
    };
    // The identity link follows the resource: syncId = the file's uuid, external id = the source's id.
    const link = (localId: string) =>
      this.link(tenantId, { type, localId, syncId: payload.uuid, externalId: payload.externalId ?? null }, t);
    if (op.action === 'create') {
      const others = (await adapter.read(tenantId)).filter((d) => d.uuid === payload.uuid);
      const id = await adapter.create(tenantId, payload.name, payload.uuid, payload.data!, t);
      // A resource whose own id equals the syncId now taken (a file mapped to null) gets a syncId of its own.
      for (const o of others)
        if (o.id !== id) await this.link(tenantId, { type, localId: o.id, syncId: randomUUID(), externalId: null }, t);
      await link(id);
    } else if (op.action === 'update') {
      const found = await current();
      const id = await adapter.update(tenantId, found, payload.name, payload.data!, t);
      if (id !== found.id) await this.unlink(tenantId, type, found.id, t);
      await link(id);
    } else if (op.action === 'delete') {
      const found = await current();
      await adapter.remove(tenantId, found, t);
      await this.unlink(tenantId, type, found.id, t);
    }
    const names = [...new Set([payload.name, payload.dbName].filter((n): n is string => !!n))];
    const drop = () => adapter.invalidate(tenantId, names).catch(() => undefined);
    if (t) t.afterCommit(() => void drop());
    else await drop();
  }

  /** One operation of a type applied outside the transaction (collections), answering its undo. */
  private async applyOutside(tenantId: string, op: DataOperation, adapter: ResourceAdapter): Promise<Undo> {
    const type = adapter.type;
    const payload = op.payload as ConfigPayload;
    const linksBefore = await this.links(tenantId, [type]);
    /** Puts the identity links of this type back as they were (`moved`: a resource created again under a new own id). */
    const restoreLinks = async (moved?: { from: string; to: string }) => {
      await this.sequelize().query('DELETE FROM cms_config_sync_links WHERE tenant_id = ? AND type = ?', {
        replacements: [tenantId, type],
      });
      for (const l of linksBefore) await this.link(tenantId, { ...l, localId: l.localId === moved?.from ? moved.to : l.localId });
    };
    const current = async () => {
      const found = (await adapter.read(tenantId)).find((d) => (payload.dbUuid ? d.uuid === payload.dbUuid : d.name === payload.dbName));
      if (!found) throw new Error(`The ${type} '${payload.dbName}' is no longer in the database`);
      return found;
    };
    const link = (localId: string) => this.link(tenantId, { type, localId, syncId: payload.uuid, externalId: payload.externalId ?? null });
    let undo: Undo;
    if (op.action === 'create') {
      const others = (await adapter.read(tenantId)).filter((d) => d.uuid === payload.uuid);
      const id = await adapter.create(tenantId, payload.name, payload.uuid, payload.data!);
      const created: DbResource = { type, name: payload.name, uuid: id, id, data: payload.data!, protectedReason: null };
      undo = async () => {
        await adapter.remove(tenantId, created);
        await restoreLinks();
      };
      try {
        for (const o of others) if (o.id !== id) await this.link(tenantId, { type, localId: o.id, syncId: randomUUID(), externalId: null });
        await link(id);
      } catch (err) {
        await undo();
        throw err;
      }
    } else if (op.action === 'update') {
      const found = await current();
      const id = await adapter.update(tenantId, found, payload.name, payload.data!);
      undo = async () => {
        await adapter.update(tenantId, { ...found, id }, found.name, found.data);
        await restoreLinks();
      };
      try {
        if (id !== found.id) await this.unlink(tenantId, type, found.id);
        await link(id);
      } catch (err) {
        await undo();
        throw err;
      }
    } else {
      const found = await current();
      await adapter.remove(tenantId, found);
      undo = async () => {
        const id = await adapter.create(tenantId, found.name, found.uuid ?? '', found.data);
        await restoreLinks({ from: found.id, to: id });
      };
      try {
        await this.unlink(tenantId, type, found.id);
      } catch (err) {
        await undo();
        throw err;
      }
    }
    await adapter.invalidate(tenantId, [...new Set([payload.name, payload.dbName].filter((n): n is string => !!n))]).catch(() => undefined);
    return undo;
  }

  /** After apply: every created or updated resource equals its file's data; every deleted one is gone. */
  async verify(tenantId: string, plan: Pick<StoredPlan, 'operationsFull'>): Promise<VerifyResult> {
    const discrepancies: string[] = [];
    const types = [...new Set(plan.operationsFull.map((o) => o.type as ResourceType))].filter((t) => this.adapters[t]);
    const db = await this.readDatabase(tenantId, types);
    const created = new Set(
      plan.operationsFull
        .filter((o) => o.action === 'create' || o.action === 'update')
        .map((o) => `${o.type}\u0000${(o.payload as ConfigPayload).name}`),
    );
    for (const op of plan.operationsFull) {
      const payload = op.payload as ConfigPayload;
      if (op.action === 'create' || op.action === 'update') {
        const row = db.find((d) => d.type === op.type && d.name === payload.name);
        if (!row) discrepancies.push(`${op.type} '${payload.name}': missing after ${op.action}`);
        else if (checksumOf(row.data) !== checksumOf(payload.data))
          discrepancies.push(`${op.type} '${payload.name}': checksum ${checksumOf(row.data)} differs from the file's ${payload.checksum}`);
      } else if (op.action === 'delete') {
        if (created.has(`${op.type}\u0000${payload.dbName}`)) continue;
        if (db.some((d) => d.type === op.type && (payload.dbUuid ? d.uuid === payload.dbUuid : d.name === payload.dbName)))
          discrepancies.push(`${op.type} '${payload.dbName}': still present after delete`);
      }
    }
    return { ok: discrepancies.length === 0, discrepancies };
  }
}

/**
 * Configuration promotion: the sync files under `<dataPath>/config/sync/` (tenant `default`; another
 * tenant under `<dataPath>/config/sync/tenants/<tenantId>/`), one file per resource at
 * `<type>/<encodeURIComponent(name)>.json` holding `{uuid, type, name, checksum, data}`, where checksum is
 * the SHA-256 (hex) of the canonical JSON (safe-stable-stringify: keys sorted, no spaces) of `data`.
 * The service exports, diffs (status), drafts plans, applies one operation and verifies; the data-ops
 * engine runs the lifecycle around it (see domain.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'safe-stable-stringify';
import type { Transaction } from 'sequelize';
import type { DataOperation, PlanDraft, SafetyMode, StoredPlan, VerifyResult } from '../data-ops/public.js';
import { RESOURCE_TYPES, type DbResource, type ResourceAdapter, type ResourceType } from './resources.js';

export const canonical = (value: unknown): string => stringify(value) ?? 'null';
export const checksumOf = (data: unknown): string => createHash('sha256').update(canonical(data)).digest('hex');

export interface SyncFile {
  uuid: string;
  type: ResourceType;
  name: string;
  checksum: string;
  data: Record<string, unknown>;
  /** Path relative to the sync folder. */
  file: string;
}

export interface FileProblem {
  file: string;
  problem: string;
}

export type ItemState = 'same' | 'changed' | 'onlyInDatabase' | 'onlyInFiles';

export interface ConfigInput {
  types: ResourceType[];
}

/** What one operation of a config plan carries (stored with the plan; never a secret: private settings are never read). */
export interface ConfigPayload {
  uuid: string;
  name: string;
  /** The database resource's current name (update/delete). */
  dbName?: string;
  /** The database resource's own id (theme id) for update/delete. */
  dbUuid?: string | null;
  checksum?: string;
  data?: Record<string, unknown>;
}

interface Pair {
  file?: SyncFile;
  db?: DbResource;
}

const safeName = (name: string) => encodeURIComponent(name).replace(/\./g, '%2E') + '.json';

export class ConfigSyncService {
  constructor(
    private readonly dataPath: string,
    private readonly adapters: Record<ResourceType, ResourceAdapter>,
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

  /** Reads the sync files of the given types; unreadable or tampered files are problems, never thrown. */
  readFiles(tenantId: string, types: ResourceType[]): { files: SyncFile[]; problems: FileProblem[] } {
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
        if (
          !parsed ||
          typeof parsed !== 'object' ||
          typeof parsed.uuid !== 'string' ||
          typeof parsed.name !== 'string' ||
          !parsed.name ||
          typeof parsed.checksum !== 'string' ||
          typeof parsed.data !== 'object' ||
          parsed.data === null ||
          Array.isArray(parsed.data)
        ) {
          problems.push({ file, problem: 'must be {uuid, type, name, checksum, data}' });
          continue;
        }
        if (parsed.type !== type) {
          problems.push({ file, problem: `has type '${String(parsed.type)}' but lies in the folder '${type}'` });
          continue;
        }
        if (checksumOf(parsed.data) !== parsed.checksum) {
          problems.push({ file, problem: 'checksum does not match its data (the file was changed after export)' });
          continue;
        }
        const invalid = this.adapters[type].check(parsed.data);
        if (invalid) {
          problems.push({ file, problem: invalid });
          continue;
        }
        if (type === 'dashboard' && parsed.name !== 'default-layout') {
          problems.push({ file, problem: "the dashboard resource is named 'default-layout'" });
          continue;
        }
        files.push({ uuid: parsed.uuid, type, name: parsed.name, checksum: parsed.checksum, data: parsed.data, file });
      }
    }
    return { files, problems };
  }

  /** Matches files to database resources: uuid (the database's own id) first, then type + name. */
  private match(files: SyncFile[], db: DbResource[]): { pairs: Pair[]; duplicates: string[] } {
    const pairs: Pair[] = [];
    const used = new Set<DbResource>();
    const duplicates: string[] = [];
    const seen = new Set<string>();
    for (const file of files) {
      const key = `${file.type}\u0000${file.name}`;
      if (seen.has(key)) duplicates.push(`Two files name the ${file.type} '${file.name}' (${file.file})`);
      seen.add(key);
    }
    const byUuid = files.map((file) => db.find((d) => d.type === file.type && d.uuid !== null && d.uuid === file.uuid && !used.has(d)));
    byUuid.forEach((d) => d && used.add(d));
    files.forEach((file, i) => {
      let d = byUuid[i];
      if (!d) {
        d = db.find((r) => r.type === file.type && r.name === file.name && !used.has(r));
        if (d) used.add(d);
      }
      pairs.push({ file, db: d });
    });
    for (const d of db) if (!used.has(d)) pairs.push({ db: d });
    return { pairs, duplicates };
  }

  private static same(pair: Pair): boolean {
    return !!pair.file && !!pair.db && pair.file.name === pair.db.name && canonical(pair.file.data) === canonical(pair.db.data);
  }

  /** Writes one file per database resource; keeps each existing file's uuid; removes files of resources that are gone. */
  async export(tenantId: string, types = this.types()): Promise<{ written: number; path: string; removed: number }> {
    const root = this.folder(tenantId);
    const db = await this.readDatabase(tenantId, types);
    let written = 0;
    let removed = 0;
    for (const type of types) {
      const dir = join(root, type);
      mkdirSync(dir, { recursive: true });
      const existing = new Map<string, string>();
      for (const entry of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
        try {
          const parsed = JSON.parse(readFileSync(join(dir, entry), 'utf8'));
          if (typeof parsed?.uuid === 'string') existing.set(entry, parsed.uuid);
        } catch {
          // an unreadable file is replaced
        }
      }
      const keep = new Set<string>();
      for (const r of db.filter((d) => d.type === type)) {
        const entry = safeName(r.name);
        keep.add(entry);
        const data = JSON.parse(canonical(r.data)) as Record<string, unknown>;
        const body = { uuid: existing.get(entry) ?? r.uuid ?? randomUUID(), type, name: r.name, checksum: checksumOf(data), data };
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

  /** Drift between the files and the database, per resource. */
  async status(tenantId: string, types = this.types()) {
    const { files, problems } = this.readFiles(tenantId, types);
    const db = await this.readDatabase(tenantId, types);
    const { pairs } = this.match(files, db);
    const items: Array<{ type: string; name: string; state: ItemState }> = pairs.map((p) => ({
      type: (p.file ?? p.db)!.type,
      name: (p.db ?? p.file)!.name,
      state: !p.db ? 'onlyInFiles' : !p.file ? 'onlyInDatabase' : ConfigSyncService.same(p) ? 'same' : 'changed',
    }));
    // A file that cannot be read or was tampered with is drift too: its resource counts as changed (or only in files).
    for (const problem of problems) {
      const [type, entry] = problem.file.split('/') as [ResourceType, string];
      const name = decodeURIComponent(entry.replace(/\.json$/, ''));
      const item = items.find((i) => i.type === type && i.name === name);
      if (item) item.state = item.state === 'onlyInDatabase' ? 'changed' : item.state;
      else items.push({ type, name, state: 'onlyInFiles' });
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

  /** The hash of the database side of the resources this input touches. */
  async snapshot(tenantId: string, input: ConfigInput): Promise<string> {
    const db = await this.readDatabase(tenantId, input.types);
    return createHash('sha256')
      .update(canonical(db.map((d) => ({ type: d.type, name: d.name, uuid: d.uuid, data: d.data }))))
      .digest('hex');
  }

  /** Diffs the files against the database in a mode; no mutation. */
  async plan(
    tenantId: string,
    input: ConfigInput,
    mode: SafetyMode,
    knownPermissions: Set<string>,
  ): Promise<Omit<PlanDraft, 'targetHash'>> {
    const { files, problems } = this.readFiles(tenantId, input.types);
    const db = await this.readDatabase(tenantId, input.types);
    const { pairs, duplicates } = this.match(files, db);
    const blockedReasons = [...problems.map((p) => `config/sync/${p.file}: ${p.problem}`), ...duplicates];
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
      checksum: f.checksum,
      data: f.data,
      ...(db ? { dbName: db.name, dbUuid: db.uuid } : {}),
    });
    const fromDb = (d: DbResource): ConfigPayload => ({ uuid: d.uuid ?? '', name: d.name, dbName: d.name, dbUuid: d.uuid });

    for (const f of files) {
      if (f.type === 'role') {
        const unknown = (f.data.permissions as string[]).filter((p) => !knownPermissions.has(p));
        if (unknown.length)
          warnings.push({
            message: `Role '${f.name}' names permissions this instance does not know: ${unknown.join(', ')}`,
            item: item('role', f.name),
          });
      }
    }
    // Names a create or a rename would take from another database resource (e.g. a theme matched by uuid renamed onto another).
    for (const p of pairs) {
      if (p.file && p.db && p.file.name !== p.db.name) {
        const clash = pairs.find((o) => o !== p && o.db && o.db.type === p.file!.type && o.db.name === p.file!.name);
        if (clash)
          blockedReasons.push(
            `config/sync/${p.file.file}: renames the ${p.db.type} '${p.db.name}' to '${p.file.name}', which another ${p.db.type} has; several candidates need a manual resolution`,
          );
      }
    }

    for (const p of pairs) {
      const type = (p.file ?? p.db)!.type;
      const adapter = this.adapters[type];
      const name = (p.file ?? p.db)!.name;
      if (p.file && p.db && ConfigSyncService.same(p)) {
        if (mode === 'replace' && !p.db.protectedReason && adapter.readOnlyReason === null) {
          deletes.push({ action: 'delete', type, target: p.db.name, count: 1, payload: fromDb(p.db) });
          creates.push({ action: 'create', type, target: name, count: 1, payload: fromFile(p.file) });
        }
        continue;
      }
      if (adapter.readOnlyReason !== null) {
        if (p.file && !p.db) skip(type, name, `Collection '${name}' exists only in the files: ${adapter.readOnlyReason}`);
        else if (p.file && p.db && mode !== 'add')
          skip(type, name, `Collection '${name}' differs from its file: ${adapter.readOnlyReason}`);
        else if (!p.file && p.db && (mode === 'mirror' || mode === 'replace'))
          skip(type, name, `Collection '${name}' exists only in the database: ${adapter.readOnlyReason}`);
        continue;
      }
      if (p.file && !p.db) {
        creates.push({ action: 'create', type, target: name, count: 1, payload: fromFile(p.file) });
      } else if (p.file && p.db) {
        if (mode === 'add') skip(type, name, `The ${type} '${p.db.name}' differs from its file; mode add never updates`);
        else if (mode === 'replace' && !p.db.protectedReason) {
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
    // Deletes in reverse dependency order; first for replace (the existing data is dropped first), last for mirror.
    const dels = order(deletes).reverse();
    const operations = mode === 'replace' ? [...dels, ...creates, ...updates, ...skips] : [...creates, ...updates, ...dels, ...skips];
    return { operations, warnings, blockedReasons };
  }

  /** Applies one operation inside the engine's transaction; caches are dropped after commit. */
  async apply(tenantId: string, op: DataOperation, t?: Transaction): Promise<void> {
    if (op.action === 'skip') return;
    const type = op.type as ResourceType;
    const adapter = this.adapters[type];
    if (!adapter) throw new Error(`Unknown resource type '${op.type}'`);
    const payload = op.payload as ConfigPayload;
    const current = async () => {
      const db = await adapter.read(tenantId);
      const found = db.find((d) => (payload.dbUuid && d.uuid === payload.dbUuid) || (!payload.dbUuid && d.name === payload.dbName));
      if (!found) throw new Error(`The ${type} '${payload.dbName}' is no longer in the database`);
      return found;
    };
    if (op.action === 'create') await adapter.create(tenantId, payload.name, payload.uuid, payload.data!, t);
    else if (op.action === 'update') await adapter.update(tenantId, await current(), payload.name, payload.data!, t);
    else if (op.action === 'delete') await adapter.remove(tenantId, await current(), t);
    const names = [...new Set([payload.name, payload.dbName].filter((n): n is string => !!n))];
    const drop = () => adapter.invalidate(tenantId, names).catch(() => undefined);
    if (t) t.afterCommit(() => void drop());
    else await drop();
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

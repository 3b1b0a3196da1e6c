import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import type { Context } from 'koa';
import type { Sequelize } from 'sequelize';
import * as tar from 'tar';
import {
  ValidationError,
  type Identity,
  type JobQueue,
  type JobView,
  type Logger,
  type WorkerPool,
  KERNEL_VERSION,
} from '../../kernel/sdk.js';
import type { CollectionsService } from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import { isInstallationKdf, keyCheckOf, keyFor, keyMatches, newKey, type BackupKdf, type KdfParams } from './crypto.js';
import { BackupNotFoundError, BackupUntrustedError } from './errors.js';
import type { InstallationKey } from './installation-key.js';
import {
  BACKUP_ID,
  BACKUP_SUFFIX,
  FORMAT,
  FORMAT_VERSION,
  ndjsonRows,
  ndjsonStream,
  openBackupFile,
  poolHash,
  writeBackupFile,
  type BackupManifest,
  type FileEntry,
  type TableInfo,
} from './format.js';
import type { BackupOptions } from './options.js';
import { receiveBackupUpload } from './upload.js';
import { openSnapshot, snapshotAll, snapshotCount, snapshotPages, type Snapshot } from './snapshot.js';
import { TableChecksum, countRows, tableExists, toJsonRow, type Row } from './tables.js';

export const CREATE_JOB = 'backups.create';
const SECRET_SETTING = /pass(word)?|secret|token|api[-_]?key|private|credential|license/i;

export interface BackupSummary {
  backupId: string;
  createdAt: string;
  size: number;
  encrypted: boolean;
  /** With what: the installation's key (the default; restores on this installation without a passphrase), a passphrase, or none. */
  encryption: Encryption;
  includesMedia: boolean;
  collections: number;
  entries: number;
}

export interface Deps {
  sequelize: Sequelize;
  pool: WorkerPool;
  jobs: JobQueue;
  logger: Logger;
  collections: () => CollectionsService;
  mediaStorage: () => MediaStorage | undefined;
  options: BackupOptions;
  dataPath: string;
  pluginVersion: string;
  /** A System Setting (the settings store, when the setup plugin is enabled). */
  setting?: (key: string) => Promise<unknown>;
  /** Whether retentionCount was configured (BACKUP_RETENTION_COUNT or plugins.options.backups.retentionCount): then it wins over the setting. */
  retentionConfigured?: boolean;
  /** The installation's backup key: manifest MACs and the default encryption. */
  installationKey: InstallationKey;
}

/** How a backup's files are encrypted: the installation's key (the default), a passphrase, or not at all (encrypt: false). */
export type Encryption = 'installation' | 'passphrase' | 'none';
type Secret = { key: Buffer; kdf: BackupKdf };

/**
 * Passphrase-derived keys held in memory only (never in the database, a job payload or a plan), with an
 * expiry: for a background create (keyed by backupId) and for a restore plan (keyed by a random
 * reference stored in the plan's input). Another instance, or this one after a restart, does not have
 * them: such a job or restore fails with a message asking to start again with the passphrase.
 */
export class KeyStore {
  private readonly keys = new Map<string, { key: Buffer; kdf?: KdfParams; expires: number }>();
  constructor(private readonly ttlMs: number) {}
  put(ref: string, key: Buffer, kdf?: KdfParams): void {
    this.sweep();
    this.keys.set(ref, { key, kdf, expires: Date.now() + this.ttlMs });
  }
  get(ref: string): { key: Buffer; kdf?: KdfParams } | null {
    const k = this.keys.get(ref);
    if (!k || k.expires < Date.now()) return null;
    return k;
  }
  delete(ref: string): void {
    this.keys.get(ref)?.key.fill(0);
    this.keys.delete(ref);
  }
  private sweep(): void {
    const now = Date.now();
    for (const [ref, k] of this.keys) if (k.expires < now) this.delete(ref);
  }
}

const safeMediaPath = (p: string) => typeof p === 'string' && p.length > 0 && !p.startsWith('/') && !p.split(/[\\/]/).includes('..');

export class BackupsService {
  readonly root: string;
  readonly keys: KeyStore;

  constructor(private readonly d: Deps) {
    this.root = join(d.dataPath, 'backups');
    this.keys = new KeyStore(d.options.keyTtlMinutes * 60_000);
  }

  dirOf(backupId: string): string {
    if (!BACKUP_ID.test(backupId)) throw new BackupNotFoundError(backupId);
    return join(this.root, backupId + BACKUP_SUFFIX);
  }

  private newId(): string {
    const t = new Date().toISOString().replace(/[-:.]/g, '');
    return `${t.slice(0, 15)}${t.slice(15, 18)}Z-${randomBytes(4).toString('hex')}`;
  }

  /** Entries of every collection plus media records: what decides inline or background. */
  async entityCount(): Promise<number> {
    let n = 0;
    for (const c of this.d.collections().list()) n += await countRows(this.d.sequelize, c.table);
    if (await tableExists(this.d.sequelize, 'media_items')) n += await countRows(this.d.sequelize, 'media_items');
    return n;
  }

  /** The installation key's secret for a backup made without a passphrase. */
  private async installationSecret(): Promise<Secret> {
    const key = await this.d.installationKey.encryptionKey();
    return { key, kdf: { algorithm: 'installation-key', keyId: await this.d.installationKey.keyId(), keyCheck: keyCheckOf(key) } };
  }

  async create(
    identity: Identity,
    input: { includeMedia?: boolean; passphrase?: string; encrypt?: boolean },
  ): Promise<{ status: 200 | 202; data: Record<string, unknown> }> {
    const includeMedia = input.includeMedia === true;
    if (input.passphrase && input.encrypt === false)
      throw new ValidationError('A passphrase encrypts the backup: do not send encrypt: false with it', [
        { path: 'body.encrypt', message: 'false contradicts the passphrase' },
      ]);
    const backupId = this.newId();
    const encryption: Encryption = input.passphrase ? 'passphrase' : input.encrypt === false ? 'none' : 'installation';
    const secret =
      encryption === 'passphrase'
        ? await newKey(input.passphrase!)
        : encryption === 'installation'
          ? await this.installationSecret()
          : null;
    if ((await this.entityCount()) < this.d.options.inlineThreshold) {
      const manifest = await this.build(backupId, includeMedia, secret);
      return { status: 200, data: { backupId, backup: this.summaryOf(manifest, await this.sizeOf(manifest)) } };
    }
    if (encryption === 'passphrase') this.keys.put(`create:${backupId}`, secret!.key, secret!.kdf as KdfParams);
    const job = await this.d.jobs.enqueue(
      CREATE_JOB,
      { backupId, includeMedia, encrypted: Boolean(secret), encryption, by: identity.userId },
      { tenantId: identity.tenantId, maxAttempts: 1 },
    );
    return { status: 202, data: { backupId, jobId: job.jobId, status: 'queued' } };
  }

  /** The job handler's work: the key of a passphrase-encrypted backup must still be in this instance's memory. */
  async runJob(
    payload: { backupId: string; includeMedia: boolean; encrypted: boolean; encryption?: Encryption },
    progress: (p: number, t: number) => Promise<void>,
  ): Promise<BackupSummary> {
    let secret: Secret | null = null;
    if (payload.encryption === 'installation') secret = await this.installationSecret();
    else if (payload.encrypted) {
      const held = this.keys.get(`create:${payload.backupId}`);
      if (!held?.kdf)
        throw new Error(
          'The passphrase of this encrypted backup is not held by this instance (restart, or another instance took the job); create the backup again',
        );
      secret = { key: held.key, kdf: held.kdf };
    }
    try {
      const manifest = await this.build(payload.backupId, payload.includeMedia, secret, progress);
      return this.summaryOf(manifest, await this.sizeOf(manifest));
    } finally {
      this.keys.delete(`create:${payload.backupId}`);
    }
  }

  /** Writes the backup into `<id>.svelty-backup.partial`, then renames it (a listed backup is always complete) and prunes. */
  async build(
    backupId: string,
    includeMedia: boolean,
    secret: Secret | null,
    progress?: (p: number, t: number) => Promise<void>,
  ): Promise<BackupManifest> {
    const { sequelize, pool, options } = this.d;
    const finalDir = this.dirOf(backupId);
    const dir = finalDir + '.partial';
    await this.ensureRoot();
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { mode: 0o700 });
    const key = secret?.key ?? null;
    const files: FileEntry[] = [];
    // Every read below goes through one snapshot: the backup is the database at one instant.
    const collectionList = this.d.collections().list();
    const hasMediaItems = await tableExists(sequelize, 'media_items');
    const snap = await openSnapshot(sequelize, collectionList[0]?.table ?? (hasMediaItems ? 'media_items' : null));
    let processed = 0;
    let total = 0;
    const tick = async (n: number) => {
      processed += n;
      await progress?.(processed, total);
    };
    try {
      for (const c of collectionList) total += await snapshotCount(snap, sequelize, c.table);
      if (hasMediaItems) total += await snapshotCount(snap, sequelize, 'media_items');
      // Content: one NDJSON file per collection, read page by page, checksummed as it goes.
      const collections: BackupManifest['collections'] = [];
      for (const c of collectionList) {
        const sum = new TableChecksum();
        const rel = `content/${c.name}.ndjson`;
        const pages = (async function* () {
          for await (const page of snapshotPages(snap, sequelize, c.table, options.pageSize)) {
            for (const row of page) sum.add(row);
            yield page.map(toJsonRow);
            await tick(page.length);
          }
        })();
        files.push(await writeBackupFile(dir, rel, ndjsonStream(pages), key, pool));
        collections.push({ name: c.name, table: c.table, rows: sum.rows, checksum: sum.hex, file: rel });
      }
      // Config snapshot: small tables, read whole.
      const config = await this.configSnapshot(snap);
      files.push(await writeBackupFile(dir, 'config.json', Readable.from([Buffer.from(JSON.stringify(config))]), key, pool));
      // Media: the records always, the files when asked.
      const media: BackupManifest['media'] = { items: null, folders: null, files: 0, missingFiles: [] };
      const storage = includeMedia ? this.d.mediaStorage() : undefined;
      const mediaPaths: string[] = [];
      for (const [table, rel, kind] of [
        ['media_items', 'media/manifest.ndjson', 'items'],
        ['media_folders', 'media/folders.ndjson', 'folders'],
      ] as const) {
        if (!(table === 'media_items' ? hasMediaItems : await tableExists(sequelize, table))) continue;
        const sum = new TableChecksum();
        const pages = (async function* () {
          for await (const page of snapshotPages(snap, sequelize, table, options.pageSize)) {
            for (const row of page) {
              sum.add(row);
              if (kind === 'items' && storage) mediaPaths.push(String(row.path));
            }
            yield page.map(toJsonRow);
            if (kind === 'items') await tick(page.length);
          }
        })();
        files.push(await writeBackupFile(dir, rel, ndjsonStream(pages), key, pool));
        media[kind] = { table, rows: sum.rows, checksum: sum.hex, file: rel };
      }
      // The rows are read: the snapshot ends before the (slow) media files are streamed.
      await snap.close();
      if (storage) {
        for (const p of mediaPaths) {
          if (!safeMediaPath(p)) {
            media.missingFiles.push(p);
            continue;
          }
          let body: Readable;
          try {
            body = await storage.get(p);
          } catch {
            media.missingFiles.push(p);
            continue;
          }
          files.push(await writeBackupFile(dir, `media/files/${p}`, body, key, pool));
          media.files++;
        }
      }
      const checksums = files.map((f) => `${f.sha256}  ${f.path}`).join('\n') + '\n';
      await writeFile(join(dir, 'checksums.sha256'), checksums, { mode: 0o600 });
      const manifest: BackupManifest = {
        format: FORMAT,
        formatVersion: FORMAT_VERSION,
        backupId,
        createdAt: new Date().toISOString(),
        instance: { kernelVersion: KERNEL_VERSION, pluginVersion: this.d.pluginVersion },
        db: { dialect: sequelize.getDialect() },
        includesMedia: includeMedia,
        encrypted: Boolean(key),
        kdf: secret?.kdf ?? null,
        collections,
        media,
        config: {
          file: 'config.json',
          settings: config.settings.length,
          roles: config.roles.length,
          collections: config.collections.length,
          themes: config.themes.length,
        },
        entries: collections.reduce((n, c) => n + c.rows, 0),
        files,
        checksumsSha256: (await poolHash(pool, join(dir, 'checksums.sha256'))).sha256,
      };
      // The MAC over the manifest (which lists every file's SHA-256) authenticates the whole backup.
      manifest.mac = await this.d.installationKey.sign(manifest);
      await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2), { mode: 0o600 });
      await rename(dir, finalDir);
      await this.prune().catch((err) => this.d.logger.warn({ err }, 'backup retention failed'));
      return manifest;
    } catch (err) {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    } finally {
      await snap.close();
    }
  }

  /** The backups folder, owner-only (0700): it holds every tenant's content. Also tightens one made before. */
  async ensureRoot(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await chmod(this.root, 0o700);
  }

  /** 'ok' when the manifest carries this installation's MAC and it matches (installation-key.ts). */
  trustOf(m: BackupManifest): Promise<'ok' | 'missing' | 'foreign' | 'altered'> {
    return this.d.installationKey.check(m);
  }

  /** Throws 400 BACKUP_UNTRUSTED unless the manifest is this installation's (or `foreign` takes it anyway). */
  async requireTrusted(m: BackupManifest, foreign: boolean): Promise<'ok' | 'missing' | 'foreign' | 'altered'> {
    const state = await this.trustOf(m);
    if (state !== 'ok' && !foreign) throw new BackupUntrustedError(m.backupId, state);
    return state;
  }

  async configSnapshot(snap: Snapshot): Promise<{ settings: Row[]; roles: Row[]; collections: Row[]; themes: Row[] }> {
    const read = async (table: string) =>
      (await tableExists(this.d.sequelize, table)) ? (await snapshotAll(snap, this.d.sequelize, table)).map(toJsonRow) : [];
    const settings = (await read('cms_settings')).filter((r) => !r.is_private && !SECRET_SETTING.test(String(r.key)));
    return { settings, roles: await read('auth_roles'), collections: await read('content_collections'), themes: await read('themes') };
  }

  /**
   * Completed backups kept: the configured option (BACKUP_RETENTION_COUNT in the environment,
   * plugins.options.backups.retentionCount), else the BACKUP_RETENTION_COUNT System Setting (a whole
   * number >= 1), else 10. Read at each prune, so a changed setting applies to the next backup.
   */
  async retentionCount(): Promise<number> {
    if (this.d.retentionConfigured || !this.d.setting) return this.d.options.retentionCount;
    const value = await this.d.setting('BACKUP_RETENTION_COUNT').catch(() => undefined);
    return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : this.d.options.retentionCount;
  }

  /** Deletes the oldest completed backups beyond retentionCount(), and partial ones older than a day. */
  async prune(): Promise<string[]> {
    if (!existsSync(this.root)) return [];
    const names = (await readdir(this.root)).sort();
    const done = names.filter((n) => n.endsWith(BACKUP_SUFFIX) && BACKUP_ID.test(n.slice(0, -BACKUP_SUFFIX.length)));
    const removed: string[] = [];
    const keep = await this.retentionCount();
    for (const n of done.slice(0, Math.max(0, done.length - keep))) {
      await rm(join(this.root, n), { recursive: true, force: true });
      removed.push(n.slice(0, -BACKUP_SUFFIX.length));
    }
    for (const n of names.filter((x) => x.endsWith('.partial'))) {
      const s = await stat(join(this.root, n)).catch(() => null);
      if (s && Date.now() - s.mtimeMs > 24 * 3600_000) await rm(join(this.root, n), { recursive: true, force: true });
    }
    return removed;
  }

  async manifest(backupId: string): Promise<BackupManifest> {
    const dir = this.dirOf(backupId);
    try {
      return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as BackupManifest;
    } catch {
      throw new BackupNotFoundError(backupId);
    }
  }

  private async sizeOf(m: BackupManifest): Promise<number> {
    const dir = this.dirOf(m.backupId);
    let size = m.files.reduce((n, f) => n + f.size, 0);
    for (const f of ['manifest.json', 'checksums.sha256']) size += (await stat(join(dir, f)).catch(() => ({ size: 0 }))).size;
    return size;
  }

  summaryOf(m: BackupManifest, size: number): BackupSummary {
    return {
      backupId: m.backupId,
      createdAt: m.createdAt,
      size,
      encrypted: m.encrypted,
      encryption: !m.encrypted ? 'none' : isInstallationKdf(m.kdf) ? 'installation' : 'passphrase',
      includesMedia: m.includesMedia,
      collections: m.collections.length,
      entries: m.entries,
    };
  }

  /** Completed backups, newest first. */
  async list(): Promise<BackupSummary[]> {
    if (!existsSync(this.root)) return [];
    const ids = (await readdir(this.root))
      .filter((n) => n.endsWith(BACKUP_SUFFIX))
      .map((n) => n.slice(0, -BACKUP_SUFFIX.length))
      .filter((id) => BACKUP_ID.test(id));
    const out: BackupSummary[] = [];
    for (const id of ids.sort().reverse()) {
      const m = await this.manifest(id).catch(() => null);
      if (m) out.push(this.summaryOf(m, await this.sizeOf(m)));
    }
    return out;
  }

  /**
   * Re-hashes every file (in the worker pool) against manifest.json and checksums.sha256, checks the
   * format version and, for an encrypted backup, the passphrase and every file's auth tag. Problems
   * are data (valid: false), never a 500.
   */
  async validate(
    backupId: string,
    passphrase?: string,
    opts: { trustForeign?: boolean; decrypt?: boolean } = {},
  ): Promise<{ valid: boolean; problems: string[] }> {
    const m = await this.manifest(backupId);
    const dir = this.dirOf(backupId);
    const problems: string[] = [];
    const trust = await this.trustOf(m);
    if (trust !== 'ok' && !opts.trustForeign)
      problems.push(
        trust === 'altered'
          ? "manifest.json: its MAC does not match this installation's key (the backup was changed after it was made)"
          : trust === 'foreign'
            ? 'manifest.json: made by another installation (its MAC is of another key); restore-plan needs foreign: true'
            : 'manifest.json: no MAC of this installation (an older version made it, or the MAC was removed); restore-plan needs foreign: true',
      );
    if (m.format !== FORMAT) problems.push(`manifest.json: format '${String(m.format)}' is not '${FORMAT}'`);
    if (m.formatVersion !== FORMAT_VERSION)
      problems.push(
        `manifest.json: format version ${String(m.formatVersion)} is not supported (this instance reads version ${FORMAT_VERSION})`,
      );
    if (!Array.isArray(m.files)) return { valid: false, problems: [...problems, 'manifest.json: no file list'] };
    // checksums.sha256 must match the manifest's own record of it and list the same hashes.
    try {
      const sums = await poolHash(this.d.pool, join(dir, 'checksums.sha256'));
      if (sums.sha256 !== m.checksumsSha256)
        problems.push('checksums.sha256: its SHA-256 does not match manifest.json (the file was changed)');
      const listed = new Map(
        (await readFile(join(dir, 'checksums.sha256'), 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((l) => [l.slice(66), l.slice(0, 64)] as const),
      );
      for (const f of m.files)
        if (listed.get(f.path) !== f.sha256) problems.push(`checksums.sha256: the entry of ${f.path} does not match manifest.json`);
    } catch {
      problems.push('checksums.sha256: missing or unreadable');
    }
    const intact = new Set<string>();
    for (const f of m.files) {
      if (f.path.split('/').includes('..')) {
        problems.push(`${f.path}: path leaves the backup folder`);
        continue;
      }
      try {
        const h = await poolHash(this.d.pool, join(dir, f.path));
        if (h.sha256 !== f.sha256 || h.size !== f.size) problems.push(`${f.path}: checksum mismatch (the file was changed or damaged)`);
        else intact.add(f.path);
      } catch {
        problems.push(`${f.path}: missing or unreadable`);
      }
    }
    if (m.encrypted) {
      let key: Buffer | null = null;
      if (isInstallationKdf(m.kdf)) {
        key = await this.installationKeyFor(m.kdf);
        if (!key) problems.push("The backup is encrypted with another installation's key: it cannot be decrypted here");
        else if (opts.decrypt === false) key = null;
      } else if (!passphrase) problems.push('The backup is encrypted: give its passphrase to check decryption');
      else if (!m.kdf) problems.push('manifest.json: encrypted but no key derivation parameters');
      else {
        key = await keyFor(passphrase, m.kdf).catch(() => null);
        if (!key) problems.push('Wrong passphrase: the key derived from it does not match this backup (nothing could be decrypted)');
      }
      if (key) {
        for (const f of m.files) {
          if (!intact.has(f.path)) continue;
          try {
            await pipeline(openBackupFile(dir, f, key), new Writable({ write: (_c, _e, cb) => cb() }));
          } catch {
            problems.push(`${f.path}: decryption failed (authentication tag mismatch)`);
          }
        }
      }
    }
    return { valid: problems.length === 0, problems };
  }

  /** The installation key when it is the one the backup was encrypted with, else null. */
  private async installationKeyFor(kdf: { keyCheck: string }): Promise<Buffer | null> {
    const key = await this.d.installationKey.encryptionKey();
    return keyMatches(key, kdf.keyCheck) ? key : null;
  }

  /** The key of an encrypted backup (the installation's, or from its passphrase); ValidationError when missing or wrong. */
  async keyOf(m: BackupManifest, passphrase: string | undefined): Promise<Buffer | null> {
    if (!m.encrypted) return null;
    if (isInstallationKdf(m.kdf)) {
      const key = await this.installationKeyFor(m.kdf);
      if (!key)
        throw new ValidationError(
          "The backup is encrypted with another installation's backup key (made without a passphrase there): it cannot be decrypted here",
          [{ path: 'body.backupId', message: "encrypted with another installation's key" }],
        );
      return key;
    }
    if (!passphrase)
      throw new ValidationError('The backup is encrypted: send its passphrase', [
        { path: 'body.passphrase', message: 'required for an encrypted backup' },
      ]);
    const key = m.kdf ? await keyFor(passphrase, m.kdf).catch(() => null) : null;
    if (!key)
      throw new ValidationError('Wrong passphrase for this backup', [{ path: 'body.passphrase', message: 'does not match the backup' }]);
    return key;
  }

  /** Rows of one NDJSON file of a backup, decrypted with `key` when encrypted. */
  rows(m: BackupManifest, file: string, key: Buffer | null): AsyncGenerator<Record<string, unknown>> {
    const entry = m.files.find((f) => f.path === file);
    if (!entry) throw new Error(`${file} is not in the backup`);
    return ndjsonRows(openBackupFile(this.dirOf(m.backupId), entry, key));
  }

  async readConfig(m: BackupManifest, key: Buffer | null): Promise<{ settings: Row[]; roles: Row[]; collections: Row[]; themes: Row[] }> {
    const entry = m.files.find((f) => f.path === 'config.json');
    if (!entry) return { settings: [], roles: [], collections: [], themes: [] };
    const chunks: Buffer[] = [];
    for await (const c of openBackupFile(this.dirOf(m.backupId), entry, key)) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }

  fileStream(m: BackupManifest, file: string, key: Buffer | null): Readable {
    const entry = m.files.find((f) => f.path === file);
    if (!entry) throw new Error(`${file} is not in the backup`);
    return openBackupFile(this.dirOf(m.backupId), entry, key);
  }

  /** The whole backup folder as a gzip-compressed tar stream (stored bytes: encrypted files stay encrypted). */
  async archive(backupId: string): Promise<Readable> {
    await this.manifest(backupId);
    return Readable.from(
      tar.c({ gzip: true, cwd: this.root, portable: true }, [backupId + BACKUP_SUFFIX]) as unknown as AsyncIterable<Buffer>,
    );
  }

  /**
   * Receives an archive of GET /api/backups/:backupId/download (streamed to disk, extracted with every
   * entry checked, the manifest checked) and lists it under its own backupId. Not pruned here: the next
   * create applies retention to it by its creation time like to any other backup.
   */
  async upload(
    ctx: Context,
    identity: Identity,
    foreign: boolean,
  ): Promise<BackupSummary & { importedAsForeign: boolean; mac: 'ok' | 'missing' | 'foreign' | 'altered' }> {
    await this.ensureRoot();
    let mac: 'ok' | 'missing' | 'foreign' | 'altered' = 'ok';
    const { backupId, manifest } = await receiveBackupUpload(ctx, this.root, this.d.options, async (m) => {
      mac = await this.requireTrusted(m, foreign);
      if (mac === 'ok') return null;
      // Taken as foreign by an installation administrator: vouched for with this installation's MAC, marked as such.
      const vouched: BackupManifest = {
        ...m,
        importedAsForeign: { at: new Date().toISOString(), by: identity.userId, reason: `mac ${mac}` },
      };
      delete vouched.mac;
      vouched.mac = await this.d.installationKey.sign(vouched);
      return vouched;
    });
    this.d.logger.info({ backupId, userId: identity.userId, entries: manifest.entries, mac }, 'backup uploaded');
    return { ...this.summaryOf(manifest, await this.sizeOf(manifest)), importedAsForeign: mac !== 'ok', mac };
  }

  async jobs(identity: Identity, jobId?: string) {
    const list: JobView[] = jobId
      ? await this.d.jobs.get(jobId).then(
          (j) => (j.type === CREATE_JOB && j.tenantId === identity.tenantId ? [j] : []),
          () => [],
        )
      : await this.d.jobs.list({ type: CREATE_JOB, tenantId: identity.tenantId, limit: 100 });
    return list.map((j) => {
      const p = j.payload as { backupId?: string };
      return {
        jobId: j.jobId,
        domain: 'backup',
        status: j.status,
        progress: { processed: j.progress?.processed ?? 0, total: j.progress?.total ?? 0 },
        ...(j.status === 'completed'
          ? { outcome: 'success' }
          : j.status === 'failed'
            ? { outcome: 'failure', error: j.error ?? undefined }
            : {}),
        backupId: p?.backupId ?? null,
        createdAt: j.createdAt,
        ...(j.completedAt ? { completedAt: j.completedAt } : {}),
      };
    });
  }
}

export type { TableInfo };

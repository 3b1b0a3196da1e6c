import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { Sequelize } from 'sequelize';
import * as tar from 'tar';
import { ValidationError, type Identity, type JobQueue, type Logger, type WorkerPool } from '../../kernel/sdk.js';
import type { CollectionsService } from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import { checksumFileProblems, decryptionProblems, fileProblems, formatProblems, trustProblems } from './backup-check.js';
import {
  rowsToWrite,
  sealManifest,
  writeCollections,
  writeConfig,
  writeSideTables,
  writeMediaFiles,
  writeMediaRecords,
  type BackupWrite,
  type ConfigSnapshot,
} from './backup-writer.js';
import { backupJobs, CREATE_JOB } from './backup-jobs.js';
import { backupKey, installationKeyFor, installationSecret } from './backup-keys.js';
import { isInstallationKdf, newKey, type KdfParams } from './crypto.js';
import { BackupNotFoundError, BackupUntrustedError } from './errors.js';
import type { InstallationKey } from './installation-key.js';
import { BACKUP_ID, BACKUP_SUFFIX, ndjsonRows, openBackupFile, type BackupManifest, type TableInfo } from './format.js';
import { KeyStore, type Secret } from './key-store.js';
import type { BackupOptions } from './options.js';
import { receiveBackupUpload } from './upload.js';
import { openSnapshot, snapshotAll, type Snapshot } from './snapshot.js';
import { countRows, tableExists, toJsonRow } from './tables.js';

export { KeyStore } from './key-store.js';
export { CREATE_JOB } from './backup-jobs.js';
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

  async create(
    identity: Identity,
    input: { includeMedia?: boolean; passphrase?: string; encrypt?: boolean; inline?: boolean },
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
          ? await installationSecret(this.d.installationKey)
          : null;
    if (input.inline || (await this.entityCount()) < this.d.options.inlineThreshold) {
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
    if (payload.encryption === 'installation') secret = await installationSecret(this.d.installationKey);
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
    const finalDir = this.dirOf(backupId);
    const dir = finalDir + '.partial';
    await this.ensureRoot();
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { mode: 0o700 });
    // Every read below goes through one snapshot: the backup is the database at one instant.
    const collectionList = this.d.collections().list();
    const hasMediaItems = await tableExists(this.d.sequelize, 'media_items');
    const snap = await openSnapshot(this.d.sequelize, collectionList[0]?.table ?? (hasMediaItems ? 'media_items' : null));
    let processed = 0;
    let total = 0;
    const tick = async (n: number) => {
      processed += n;
      await progress?.(processed, total);
    };
    const { sequelize, pool, options } = this.d;
    const w: BackupWrite = { dir, backupId, includeMedia, secret, sequelize, pool, pageSize: options.pageSize, snap, files: [], tick };
    try {
      total = await rowsToWrite(w, collectionList, hasMediaItems);
      const collections = await writeCollections(w, collectionList);
      const sides = await writeSideTables(w, collections);
      const config = await this.configSnapshot(snap);
      await writeConfig(w, config);
      // Media: the records always, the files when asked.
      const media: BackupManifest['media'] = { items: null, folders: null, files: 0, missingFiles: [] };
      const storage = includeMedia ? this.d.mediaStorage() : undefined;
      const present = async (table: string) => (table === 'media_items' ? hasMediaItems : await tableExists(sequelize, table));
      const mediaPaths = await writeMediaRecords(w, media, present, Boolean(storage));
      // The rows are read: the snapshot ends before the (slow) media files are streamed.
      await snap.close();
      if (storage) await writeMediaFiles(w, storage, mediaPaths, media);
      const manifest = await sealManifest(w, { collections, media, config, ...sides }, this.d.pluginVersion, this.d.installationKey);
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

  async configSnapshot(snap: Snapshot): Promise<ConfigSnapshot> {
    const read = async (table: string) =>
      (await tableExists(this.d.sequelize, table)) ? (await snapshotAll(snap, this.d.sequelize, table)).map(toJsonRow) : [];
    const settings = (await read('cms_settings')).filter((r) => !r.is_private && !SECRET_SETTING.test(String(r.key)));
    return {
      settings,
      roles: await read('auth_roles'),
      collections: await read('content_collections'),
      themes: await read('themes'),
      components: await read('content_components'),
      locales: await read('content_locales'),
    };
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
    const problems = [...trustProblems(await this.trustOf(m), opts.trustForeign), ...formatProblems(m)];
    if (!Array.isArray(m.files)) return { valid: false, problems: [...problems, 'manifest.json: no file list'] };
    problems.push(...(await checksumFileProblems(this.d.pool, dir, m)));
    const intact = await fileProblems(this.d.pool, dir, m, problems);
    problems.push(
      ...(await decryptionProblems(dir, m, intact, {
        passphrase,
        decrypt: opts.decrypt,
        installationKeyFor: (kdf) => installationKeyFor(this.d.installationKey, kdf),
      })),
    );
    return { valid: problems.length === 0, problems };
  }

  /** The key of an encrypted backup (the installation's, or from its passphrase); ValidationError when missing or wrong. */
  keyOf(m: BackupManifest, passphrase: string | undefined): Promise<Buffer | null> {
    return backupKey(this.d.installationKey, m, passphrase);
  }

  /** Rows of one NDJSON file of a backup, decrypted with `key` when encrypted. */
  rows(m: BackupManifest, file: string, key: Buffer | null): AsyncGenerator<Record<string, unknown>> {
    const entry = m.files.find((f) => f.path === file);
    if (!entry) throw new Error(`${file} is not in the backup`);
    return ndjsonRows(openBackupFile(this.dirOf(m.backupId), entry, key));
  }

  async readConfig(m: BackupManifest, key: Buffer | null): Promise<ConfigSnapshot> {
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
    ctx: Context | { archivePath: string },
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

  jobs(identity: Identity, jobId?: string) {
    return backupJobs(this.d.jobs, identity, jobId);
  }
}

export type { TableInfo };

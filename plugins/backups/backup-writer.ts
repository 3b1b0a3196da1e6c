/**
 * Writing one backup into `<id>.svelty-backup.partial`, step by step: the collections (one NDJSON file
 * each, read page by page through one database snapshot and checksummed as they go), the config
 * snapshot, the media records, then (after the snapshot ends) the media files, the checksums file and
 * the signed manifest. The caller renames the folder (a listed backup is always complete).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Sequelize } from 'sequelize';
import { type WorkerPool, KERNEL_VERSION } from '../../kernel/sdk.js';
import type { LoadedCollection } from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import { FORMAT, FORMAT_VERSION, ndjsonStream, poolHash, writeBackupFile, type BackupManifest, type FileEntry } from './format.js';
import type { InstallationKey } from './installation-key.js';
import type { Secret } from './key-store.js';
import { snapshotCount, snapshotPages, type Snapshot } from './snapshot.js';
import { TableChecksum, tableExists, toJsonRow, type Row } from './tables.js';
import { ENTRY_LOCALES_FILE, ENTRY_LOCALES_TABLE, entryLocalePages } from './entry-locales.js';
import { ENTRY_DRAFTS_FILE, ENTRY_DRAFTS_TABLE } from './entry-drafts.js';
import { ENTRY_LOCALE_TIMES_FILE, ENTRY_LOCALE_TIMES_TABLE } from './entry-locale-times.js';

/** config.json: `components` (issue 35) is absent from backups made before components, `locales` (issue 36) before locales. */
export type ConfigSnapshot = { settings: Row[]; roles: Row[]; collections: Row[]; themes: Row[]; components?: Row[]; locales?: Row[] };

/** One backup being written: where, with which key, through which snapshot, and the files written so far. */
export interface BackupWrite {
  dir: string;
  backupId: string;
  includeMedia: boolean;
  secret: Secret | null;
  sequelize: Sequelize;
  pool: WorkerPool;
  pageSize: number;
  snap: Snapshot;
  files: FileEntry[];
  /** Counts rows read towards the progress of a background create. */
  tick: (n: number) => Promise<void>;
}

const safeMediaPath = (p: string) => typeof p === 'string' && p.length > 0 && !p.startsWith('/') && !p.split(/[\\/]/).includes('..');

const MEDIA_TABLES = [
  ['media_items', 'media/manifest.ndjson', 'items'],
  ['media_folders', 'media/folders.ndjson', 'folders'],
] as const;

/** Writes one table as an NDJSON file page by page; calls `onPage` with each page's rows (before conversion). */
async function writeTable(
  w: BackupWrite,
  table: string,
  rel: string,
  onPage: (page: Row[]) => Promise<void>,
  source: AsyncIterable<Row[]> = snapshotPages(w.snap, w.sequelize, table, w.pageSize),
): Promise<TableChecksum> {
  const sum = new TableChecksum();
  const pages = (async function* () {
    for await (const page of source) {
      for (const row of page) sum.add(row);
      yield page.map(toJsonRow);
      await onPage(page);
    }
  })();
  w.files.push(await writeBackupFile(w.dir, rel, ndjsonStream(pages), w.secret?.key ?? null, w.pool));
  return sum;
}

/** Rows to write in all (the progress total): every collection's, plus the media records'. */
export async function rowsToWrite(w: BackupWrite, collections: LoadedCollection[], hasMediaItems: boolean): Promise<number> {
  let total = 0;
  for (const c of collections) total += await snapshotCount(w.snap, w.sequelize, c.table);
  if (hasMediaItems) total += await snapshotCount(w.snap, w.sequelize, 'media_items');
  return total;
}

/** Content: one NDJSON file per collection, read page by page, checksummed as it goes. */
export async function writeCollections(w: BackupWrite, list: LoadedCollection[]): Promise<BackupManifest['collections']> {
  const collections: BackupManifest['collections'] = [];
  for (const c of list) {
    const rel = `content/${c.name}.ndjson`;
    const sum = await writeTable(w, c.table, rel, (page) => w.tick(page.length));
    collections.push({ name: c.name, table: c.table, rows: sum.rows, checksum: sum.hex, file: rel });
  }
  return collections;
}

/**
 * One of the content plugin's side tables of the backed-up collections (keyed by tenant, collection, entry and locale):
 * one NDJSON file, read page by page through the snapshot, checksummed as it goes; null when this instance has none.
 */
async function writeSideTable(w: BackupWrite, collections: BackupManifest['collections'], table: string, file: string) {
  if (!(await tableExists(w.sequelize, table))) return null;
  const names = collections.map((c) => c.name);
  const pages = entryLocalePages(w.snap.select, w.sequelize, names, w.pageSize, table);
  const sum = await writeTable(w, table, file, async () => undefined, pages);
  return { table, rows: sum.rows, checksum: sum.hex, file };
}

/**
 * The content plugin's side tables of the backed-up collections: entries' versions in other locales
 * (entry-locales.ts), working drafts (entry-drafts.ts) and when the default locale's values last changed
 * (entry-locale-times.ts).
 */
export async function writeSideTables(w: BackupWrite, collections: BackupManifest['collections']) {
  return {
    entryLocales: await writeSideTable(w, collections, ENTRY_LOCALES_TABLE, ENTRY_LOCALES_FILE),
    entryDrafts: await writeSideTable(w, collections, ENTRY_DRAFTS_TABLE, ENTRY_DRAFTS_FILE),
    entryLocaleTimes: await writeSideTable(w, collections, ENTRY_LOCALE_TIMES_TABLE, ENTRY_LOCALE_TIMES_FILE),
  };
}

/** Config snapshot: small tables, read whole. */
export async function writeConfig(w: BackupWrite, config: ConfigSnapshot): Promise<void> {
  w.files.push(
    await writeBackupFile(w.dir, 'config.json', Readable.from([Buffer.from(JSON.stringify(config))]), w.secret?.key ?? null, w.pool),
  );
}

/** Media records, always; returns the paths of the media files to copy when `withFiles`. */
export async function writeMediaRecords(
  w: BackupWrite,
  media: BackupManifest['media'],
  present: (table: string) => Promise<boolean>,
  withFiles: boolean,
): Promise<string[]> {
  const mediaPaths: string[] = [];
  for (const [table, rel, kind] of MEDIA_TABLES) {
    if (!(await present(table))) continue;
    const sum = await writeTable(w, table, rel, async (page) => {
      if (kind !== 'items') return;
      if (withFiles) for (const row of page) mediaPaths.push(String(row.path));
      await w.tick(page.length);
    });
    media[kind] = { table, rows: sum.rows, checksum: sum.hex, file: rel };
  }
  return mediaPaths;
}

/** The media files, streamed from storage; a file that is missing or has an unsafe path is listed as missing. */
export async function writeMediaFiles(
  w: BackupWrite,
  storage: MediaStorage,
  paths: string[],
  media: BackupManifest['media'],
): Promise<void> {
  for (const p of paths) {
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
    w.files.push(await writeBackupFile(w.dir, `media/files/${p}`, body, w.secret?.key ?? null, w.pool));
    media.files++;
  }
}

/** checksums.sha256, then manifest.json with the MAC over it (which lists every file's SHA-256: it authenticates the whole backup). */
export async function sealManifest(
  w: BackupWrite,
  parts: {
    collections: BackupManifest['collections'];
    media: BackupManifest['media'];
    config: ConfigSnapshot;
    entryLocales: BackupManifest['entryLocales'];
    entryDrafts?: BackupManifest['entryDrafts'];
    entryLocaleTimes?: BackupManifest['entryLocaleTimes'];
  },
  pluginVersion: string,
  installationKey: InstallationKey,
): Promise<BackupManifest> {
  const { files, dir, pool, secret } = w;
  const { collections, media, config, entryLocales, entryDrafts, entryLocaleTimes } = parts;
  const checksums = files.map((f) => `${f.sha256}  ${f.path}`).join('\n') + '\n';
  await writeFile(join(dir, 'checksums.sha256'), checksums, { mode: 0o600 });
  const manifest: BackupManifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    backupId: w.backupId,
    createdAt: new Date().toISOString(),
    instance: { kernelVersion: KERNEL_VERSION, pluginVersion },
    db: { dialect: w.sequelize.getDialect() },
    includesMedia: w.includeMedia,
    encrypted: Boolean(secret?.key),
    kdf: secret?.kdf ?? null,
    collections,
    media,
    ...(entryLocales ? { entryLocales } : {}),
    ...(entryDrafts ? { entryDrafts } : {}),
    ...(entryLocaleTimes ? { entryLocaleTimes } : {}),
    config: {
      file: 'config.json',
      settings: config.settings.length,
      roles: config.roles.length,
      collections: config.collections.length,
      themes: config.themes.length,
      components: config.components?.length ?? 0,
      locales: config.locales?.length ?? 0,
    },
    entries: collections.reduce((n, c) => n + c.rows, 0),
    files,
    checksumsSha256: (await poolHash(pool, join(dir, 'checksums.sha256'))).sha256,
  };
  manifest.mac = await installationKey.sign(manifest);
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2), { mode: 0o600 });
  return manifest;
}

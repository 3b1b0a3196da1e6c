/**
 * Writes one `.svelty-package` (format in public.ts) into `<root>/<packageId>.partial/`, step by step so
 * the export domain can run one step per plan operation (and a content-sync build all of them):
 *
 *   collection(name)  schemas/<name>.json and content/<name>.ndjson: the selected entries keyset-paged
 *                     on id (pageSize rows in memory at a time), each line a PackageEntry (entry-codec.ts);
 *                     per page and related collection one query resolves relation ids to sync ids, one
 *                     reads the importers' links (`import_links`, when that table exists) as externalIds,
 *                     and with a peer one reads the ledger's agreed checksums as baseChecksum
 *   media()           media/manifest.ndjson: the tenant's media records referenced by a media field of the
 *                     selected entries (sub-selects in SQL, no id list in memory), and with includeMedia
 *                     each file streamed from the storage driver to media/files/<sha256> (hashed by the
 *                     worker pool; one copy per distinct content)
 *   finish()          checksums.sha256 (sha256sum format, every file but itself and manifest.json, the same
 *                     list as manifest.files), manifest.json, the gzip tar archive (package-archive.ts), its
 *                     row in cms_content_exports; the folder is deleted
 *
 * NDJSON files are hashed while they stream. Nothing here holds a database transaction: every page is
 * its own read (a package is not a point-in-time snapshot of the whole selection).
 */
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { QueryTypes, type Sequelize } from 'sequelize';
import { JobInterruptedError, type Logger, type WorkerPool, KERNEL_VERSION } from '../../kernel/sdk.js';
import type { CollectionsService, ComponentsService, FieldDefinition, LoadedCollection } from '../content/public.js';
import type { MediaStorage } from '../media/public.js';
import { defaultLocaleCode, encodeFields, encodeLocales, entryChecksum, pageVersions, referencedIds } from './entry-codec.js';
import { newPackageId, type ExportPackages } from './export-packages.js';
import { mediaWhere, quote, referencedMediaWhere, selectionWhere, type Where } from './export-selection.js';
import type { ContentLedger } from './ledger.js';
import { sha256OfFile, writeArchive } from './package-archive.js';
import { COMPONENTS_FILE, componentsFor } from './plan-components.js';
import { entryOf, HashCounter, PackageQueries } from './package-queries.js';
import {
  PACKAGE_FORMAT,
  PACKAGE_FORMAT_VERSION,
  PACKAGE_SUFFIX,
  type ExportSelection,
  type PackageEntry,
  type PackageManifest,
  type PackageMedia,
} from './public.js';

export const MEDIA_MANIFEST = 'media/manifest.ndjson';
/** Media folders remembered per build (their names make a record's `folder` path); cleared beyond. */

export interface WriterDeps {
  sequelize: Sequelize;
  collections: CollectionsService;
  /** The components the exported collections use go into components.json (absent: none are written). */
  components?: ComponentsService;
  mediaStorage: MediaStorage | undefined;
  pool: WorkerPool;
  ledger: ContentLedger;
  packages: ExportPackages;
  logger?: Logger;
  pageSize: number;
}

export interface WriterOptions {
  tenantId: string;
  createdBy: string | null;
  /** The export plan this package is the result of (download by planId / jobId). */
  planId?: string | null;
  /** Content sync: entries carry baseChecksum from the ledger for this peer. */
  peer?: string;
  signal?: AbortSignal;
}

export interface BuiltPackage {
  packageId: string;
  archivePath: string;
  size: number;
  sha256: string;
  manifest: PackageManifest;
}

type FileRecord = PackageManifest['files'][number];

const safeName = (name: string) => /^[A-Za-z0-9_-]{1,64}$/.test(name);

export class PackageWriter {
  readonly packageId = newPackageId();
  readonly dir: string;
  private readonly files: FileRecord[] = [];
  /** media/files/<sha256> already written (one copy per content). */
  private readonly mediaFiles = new Map<string, FileRecord>();
  private readonly written: PackageManifest['collections'] = [];
  /** The field lists of the written collections (for the components they use). */
  private readonly writtenFields: FieldDefinition[][] = [];
  /** Media ids found inside component and blocks values (their records go into the media manifest). */
  private readonly nestedMedia = new Set<string>();
  private mediaInfo: PackageManifest['media'] | null = null;
  private closed = false;
  private readonly q: PackageQueries;

  private constructor(
    private readonly d: WriterDeps,
    readonly selection: ExportSelection,
    private readonly o: WriterOptions,
  ) {
    this.dir = join(d.packages.root, `${this.packageId}.partial`);
    this.q = new PackageQueries(d, o.tenantId, () => this.checkSignal());
  }

  static async open(d: WriterDeps, selection: ExportSelection, o: WriterOptions): Promise<PackageWriter> {
    const w = new PackageWriter(d, selection, o);
    await mkdir(w.dir, { recursive: true });
    return w;
  }

  /** Entries of the selection per collection, as they are now (for progress totals). */
  static async count(d: Pick<WriterDeps, 'sequelize' | 'collections'>, selection: ExportSelection, tenantId: string): Promise<number> {
    let n = 0;
    for (const name of selection.collections) {
      const c = await d.collections.get(name);
      const where = selectionWhere(d.sequelize, c, tenantId, selection);
      const [row] = await d.sequelize.query<{ n: number | string }>(
        `SELECT COUNT(*) AS n FROM ${quote(d.sequelize, c.table)} WHERE ${where.sql}`,
        {
          type: QueryTypes.SELECT,
          replacements: where.values,
        },
      );
      n += Number(row?.n ?? 0);
    }
    return n;
  }

  private checkSignal(): void {
    if (this.o.signal?.aborted) throw new JobInterruptedError();
  }

  /** Streams `source` to `<dir>/<rel>`, hashing it on the way. */
  private async writeStream(rel: string, source: Readable): Promise<FileRecord> {
    const path = join(this.dir, rel);
    await mkdir(dirname(path), { recursive: true });
    const counter = new HashCounter();
    await pipeline(source, counter, createWriteStream(path));
    const record = { path: rel, size: counter.size, sha256: counter.digest() };
    this.files.push(record);
    return record;
  }

  /** Pages of NDJSON lines as one byte stream (a page is serialised only when the file asks for more). */
  private ndjson(pages: AsyncIterable<unknown[]> | Iterable<unknown[]>): Readable {
    return Readable.from(
      (async function* () {
        for await (const page of pages) if (page.length) yield Buffer.from(page.map((x) => JSON.stringify(x)).join('\n') + '\n');
      })(),
      { objectMode: false },
    );
  }

  /** The PackageEntry lines of the selected entries of `c`, a page at a time. */
  private async *entryPages(
    c: LoadedCollection,
    where: Where,
    tally: { count: number },
    onProgress?: (written: number) => void,
  ): AsyncGenerator<PackageEntry[]> {
    for await (const rows of this.q.pages(c.table, where)) {
      const entries = rows.map((r) => entryOf(c, r));
      const { versions, values, times } = await pageVersions(this.d.sequelize, c, this.o.tenantId, entries, true);
      const resolved = new Map<string, Map<string, string>>();
      for (const [target, ids] of referencedIds(c.fields, [...entries, ...values]))
        resolved.set(target, await this.q.syncIds(target, [...ids]));
      const links = await this.q.externalIds(
        c.name,
        entries.map((e) => e._id),
      );
      const bases = this.o.peer
        ? await this.d.ledger.bases(
            this.o.tenantId,
            this.o.peer,
            c.name,
            entries.map((e) => String(e.syncId)),
          )
        : null;
      const page: PackageEntry[] = entries.map((e) => {
        const syncIdOf = (collection: string, id: string) => resolved.get(collection)?.get(id) ?? null;
        const fields = encodeFields(c.fields, e, syncIdOf, this.nestedMedia);
        const locales = encodeLocales(c.fields, versions.get(e._id), syncIdOf, this.nestedMedia);
        const syncId = String(e.syncId);
        const line: PackageEntry = {
          syncId,
          sourceId: e._id,
          slug: e.slug,
          status: e.status,
          createdAt: e.createdAt,
          updatedAt: e.updatedAt,
          ...(links.has(e._id) ? { externalIds: links.get(e._id)! } : {}),
          fields,
          ...(locales ? { locales } : {}),
          ...(times.has(e._id) ? { localeUpdatedAt: times.get(e._id)! } : {}),
          checksum: entryChecksum(e.slug, e.status, fields, locales),
        };
        const base = bases?.get(syncId);
        if (base) line.baseChecksum = base;
        return line;
      });
      tally.count += page.length;
      onProgress?.(tally.count);
      yield page;
    }
  }

  /** Writes schemas/<name>.json and content/<name>.ndjson; answers the number of entries. */
  async collection(name: string, onProgress?: (written: number) => void): Promise<number> {
    if (!safeName(name)) throw new Error(`Collection name '${name.slice(0, 80)}' cannot be a package file name`);
    const c = await this.d.collections.get(name);
    const schemaFile = `schemas/${c.name}.json`;
    const schema = { name: c.name, label: c.label, singular: c.singular, fields: c.fields, version: c.version };
    await this.writeStream(schemaFile, Readable.from([Buffer.from(JSON.stringify(schema, null, 2) + '\n')]));
    const where = selectionWhere(this.d.sequelize, c, this.o.tenantId, this.selection);
    const tally = { count: 0 };
    const lines = this.entryPages(c, where, tally, onProgress);
    const file = `content/${c.name}.ndjson`;
    await this.writeStream(file, this.ndjson(lines));
    this.written.push({ name: c.name, entries: tally.count, file, schemaFile });
    this.writtenFields.push(c.fields);
    return tally.count;
  }

  /** Copies one stored file into media/files/<sha256> (once per content); null when the storage cannot give it. */
  private async copyFile(path: string, recorded: string): Promise<{ rel: string; sha256: string; size: number } | null> {
    const storage = this.d.mediaStorage;
    if (!storage || typeof path !== 'string' || !path || path.startsWith('/') || path.split(/[\\/]/).includes('..')) return null;
    const known = this.mediaFiles.get(`media/files/${recorded}`);
    if (known) return { rel: known.path, sha256: known.sha256, size: known.size };
    let body: Readable;
    try {
      body = await storage.get(path);
    } catch (err) {
      this.d.logger?.warn({ err, path }, 'content export: a media file could not be read; its record is exported without the file');
      return null;
    }
    await mkdir(join(this.dir, 'media', 'files'), { recursive: true });
    const tmp = join(this.dir, 'media', 'files', `.tmp-${this.files.length}`);
    try {
      await pipeline(body, createWriteStream(tmp));
    } catch (err) {
      await rm(tmp, { force: true });
      this.d.logger?.warn({ err, path }, 'content export: a media file could not be copied; its record is exported without the file');
      return null;
    }
    const { sha256, size } = await sha256OfFile(this.d.pool, tmp);
    if (sha256 !== recorded)
      this.d.logger?.warn({ path }, 'content export: a media file does not match its recorded checksum; exported as stored');
    const rel = `media/files/${sha256}`;
    if (this.mediaFiles.has(rel)) await rm(tmp, { force: true });
    else {
      await rename(tmp, join(this.dir, rel));
      const record = { path: rel, size, sha256 };
      this.files.push(record);
      this.mediaFiles.set(rel, record);
    }
    return { rel, sha256, size };
  }

  /** The PackageMedia lines of the records matching `where`, a page at a time (copying files when asked). */
  private async *mediaPages(
    where: Where,
    tally: { records: number; bytes: number },
    onProgress?: (written: number) => void,
  ): AsyncGenerator<PackageMedia[]> {
    const { sequelize } = this.d;
    const includeFiles = this.selection.includeMedia === true;
    const columns = ['id', 'filename', 'original_name', 'mime_type', 'size', 'checksum', 'path', 'width', 'height', 'folder_id', 'private']
      .map((c) => quote(sequelize, c))
      .join(', ');
    for await (const rows of this.q.pages('media_items', where, columns)) {
      const page: PackageMedia[] = [];
      for (const r of rows) {
        const record: PackageMedia = {
          id: String(r.id),
          filename: String(r.filename),
          mimeType: String(r.mime_type),
          size: Number(r.size),
          sha256: String(r.checksum),
          path: String(r.path),
          folder: await this.q.folderPath(r.folder_id == null ? null : String(r.folder_id)),
          meta: {
            originalName: r.original_name == null ? null : String(r.original_name),
            width: r.width == null ? null : Number(r.width),
            height: r.height == null ? null : Number(r.height),
            private: r.private === true || r.private === 1 || r.private === '1',
          },
        };
        if (includeFiles) {
          this.checkSignal();
          const copied = await this.copyFile(String(r.path), record.sha256);
          if (copied) {
            record.file = copied.rel;
            record.sha256 = copied.sha256;
            record.size = copied.size;
            tally.bytes += copied.size;
          }
        }
        page.push(record);
      }
      tally.records += page.length;
      onProgress?.(tally.records);
      yield page;
    }
  }

  /** Writes media/manifest.ndjson (and with includeMedia the files); answers the number of records. */
  async media(onProgress?: (written: number) => void): Promise<number> {
    const loaded: LoadedCollection[] = [];
    for (const name of this.selection.collections) loaded.push(await this.d.collections.get(name));
    const byField = referencedMediaWhere(this.d.sequelize, loaded, this.o.tenantId, this.selection);
    // Media the selected entries' rich text refers to (`/files/<path>` URLs: the editor's Image button).
    const paths = await this.q.richTextPaths(loaded, this.selection);
    // Media inside component and blocks values were collected while the entries were written.
    const where = mediaWhere(this.d.sequelize, this.o.tenantId, byField, paths, [...this.nestedMedia]);
    const tally = { records: 0, bytes: 0 };
    await this.writeStream(MEDIA_MANIFEST, this.ndjson(where ? this.mediaPages(where, tally, onProgress) : []));
    this.mediaInfo = {
      records: tally.records,
      file: MEDIA_MANIFEST,
      includesFiles: this.selection.includeMedia === true,
      bytes: tally.bytes,
    };
    return tally.records;
  }

  /** checksums.sha256, manifest.json, the archive, its row; the folder is deleted. */
  async finish(): Promise<BuiltPackage> {
    if (!this.mediaInfo) await this.media();
    const components = componentsFor(this.writtenFields, this.d.components?.definitions() ?? new Map());
    if (components.length)
      await this.writeStream(COMPONENTS_FILE, Readable.from([Buffer.from(JSON.stringify(components, null, 2) + '\n')]));
    this.checkSignal();
    const checksums = this.files.map((f) => `${f.sha256}  ${f.path}`).join('\n') + '\n';
    await writeFile(join(this.dir, 'checksums.sha256'), checksums);
    const manifest: PackageManifest = {
      format: PACKAGE_FORMAT,
      version: PACKAGE_FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      source: {
        installationId: await this.d.ledger.installationId(),
        kernelVersion: KERNEL_VERSION,
        dialect: this.d.sequelize.getDialect(),
        ...(this.o.peer ? { peer: this.o.peer } : {}),
      },
      selection: this.selection,
      collections: this.written,
      media: this.mediaInfo!,
      ...(components.length ? { components: { file: COMPONENTS_FILE, count: components.length } } : {}),
      locales: { default: await defaultLocaleCode(this.d.sequelize) },
      files: this.files,
    };
    await writeFile(join(this.dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    const present = ['manifest.json', 'checksums.sha256', COMPONENTS_FILE, 'schemas', 'content', 'media'].filter((e) =>
      existsSync(join(this.dir, e)),
    );
    const archivePath = this.d.packages.archivePath(this.packageId);
    const { size, sha256 } = await writeArchive(this.dir, present, archivePath, this.d.pool);
    try {
      await this.d.packages.insert({
        packageId: this.packageId,
        tenantId: this.o.tenantId,
        planId: this.o.planId ?? null,
        peer: this.o.peer ?? null,
        fileName: this.packageId + PACKAGE_SUFFIX,
        size,
        sha256,
        entries: this.written.reduce((n, c) => n + c.entries, 0),
        createdBy: this.o.createdBy,
        createdAt: Date.now(),
      });
    } catch (err) {
      await rm(archivePath, { force: true });
      throw err;
    }
    await this.close();
    return { packageId: this.packageId, archivePath, size, sha256, manifest };
  }

  /** Removes the work folder (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Undo: the work folder, and the archive and its row if finish() got that far. */
  async discard(): Promise<void> {
    await this.close();
    await this.d.packages.remove(this.packageId);
  }
}

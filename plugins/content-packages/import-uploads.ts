/**
 * Received packages (POST /api/content-import/validate, contentPackages.receive), one folder each:
 *
 *   <root>/imports/<uploadId>/archive.tar.gz   the received body (removed after extraction)
 *   <root>/imports/<uploadId>/x/...           the extracted package (its root: x/ or x/<one folder>/)
 *   <root>/imports/<uploadId>/upload.json     {uploadId, tenantId, createdAt, valid, problems, manifest, root}
 *   <root>/imports/<uploadId>/plans/<id>/     the decisions of each plan made from it (see import-plan.ts)
 *
 * Kept `importUploadTtlHours` (24 h), then pruned. A refused archive leaves nothing on disk.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Context } from 'koa';
import { type Identity, receiveMultipartFile } from '../../kernel/sdk.js';
import type { CollectionsService } from '../content/public.js';
import { ContentImportUploadNotFoundError } from './import-errors.js';
import type { ImportOptions } from './import-options.js';
import { incompatibilities, readSchema } from './import-schemas.js';
import { checkPackage, extractPackage } from './package-reader.js';
import type { ImportValidation, PackageManifest } from './public.js';

export const UPLOAD_ID = /^[0-9a-f-]{36}$/;

export interface UploadMeta {
  uploadId: string;
  tenantId: string;
  createdAt: number;
  valid: boolean;
  problems: string[];
  manifest: PackageManifest | null;
  /** The package root, relative to the upload folder. */
  root: string;
}

export class ImportUploads {
  constructor(
    private readonly root: string,
    private readonly options: ImportOptions,
    private readonly collections: () => CollectionsService,
  ) {}

  get folder(): string {
    return join(this.root, 'imports');
  }

  dirOf(uploadId: string): string {
    return join(this.folder, uploadId);
  }

  /** Receives the multipart body (field `file`) and validates it. */
  async receiveHttp(ctx: Context, identity: Identity): Promise<ImportValidation> {
    return this.accept(identity, async (archive) => {
      const mib = +(this.options.importMaxBytes / 1048576).toFixed(2);
      await receiveMultipartFile(ctx, archive, this.options.importMaxBytes, `${mib} MiB (CONTENT_IMPORT_MAX_BYTES)`);
    });
  }

  /** Takes an archive file (moved, or copied and removed across devices) and validates it. */
  async receiveFile(archivePath: string, identity: Identity): Promise<ImportValidation> {
    return this.accept(identity, async (archive) => {
      try {
        await rename(archivePath, archive);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
        await copyFile(archivePath, archive);
        await rm(archivePath, { force: true });
      }
    });
  }

  private async accept(identity: Identity, receive: (archive: string) => Promise<void>): Promise<ImportValidation> {
    const uploadId = randomUUID();
    const dir = this.dirOf(uploadId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    try {
      const archive = join(dir, 'archive.tar.gz');
      await receive(archive);
      const x = join(dir, 'x');
      await mkdir(x);
      const root = await extractPackage(archive, x, this.options);
      await rm(archive, { force: true });
      const { problems, manifest } = await checkPackage(root);
      if (manifest) problems.push(...(await this.schemaProblems(root, manifest)));
      const meta: UploadMeta = {
        uploadId,
        tenantId: identity.tenantId,
        createdAt: Date.now(),
        valid: problems.length === 0,
        problems,
        manifest,
        root: relative(dir, root),
      };
      await writeFile(join(dir, 'upload.json'), JSON.stringify(meta));
      return { uploadId, valid: meta.valid, problems, manifest };
    } catch (err) {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
  }

  /** Schemas readable, and no field of another type than on the target (a missing collection is fine: the plan creates it). */
  private async schemaProblems(root: string, manifest: PackageManifest): Promise<string[]> {
    const out: string[] = [];
    const here = new Map(
      this.collections()
        .list()
        .map((c) => [c.name, c]),
    );
    for (const c of manifest.collections) {
      const schema = await readSchema(root, c.name, c.schemaFile);
      if (typeof schema === 'string') out.push(schema);
      else if (here.has(c.name)) out.push(...incompatibilities(c.name, here.get(c.name)!.fields, schema.fields));
    }
    return out;
  }

  /** The upload of this tenant (404 CONTENT_IMPORT_UPLOAD_NOT_FOUND otherwise) and its package root. */
  async load(uploadId: string, tenantId: string): Promise<{ meta: UploadMeta; dir: string; root: string }> {
    if (!UPLOAD_ID.test(uploadId)) throw new ContentImportUploadNotFoundError(uploadId);
    const dir = this.dirOf(uploadId);
    let meta: UploadMeta;
    try {
      meta = JSON.parse(await readFile(join(dir, 'upload.json'), 'utf8')) as UploadMeta;
    } catch {
      throw new ContentImportUploadNotFoundError(uploadId);
    }
    if (meta.tenantId !== tenantId || Date.now() - meta.createdAt > this.ttlMs) throw new ContentImportUploadNotFoundError(uploadId);
    return { meta, dir, root: join(dir, meta.root) };
  }

  private get ttlMs(): number {
    return this.options.importUploadTtlHours * 3600 * 1000;
  }

  /** Removes uploads older than the TTL (and folders left without upload.json by a crash, after the TTL). */
  async prune(): Promise<number> {
    let removed = 0;
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch {
      return 0;
    }
    for (const name of names.slice(0, 10_000)) {
      const dir = join(this.folder, name);
      let created = 0;
      try {
        created = (JSON.parse(await readFile(join(dir, 'upload.json'), 'utf8')) as UploadMeta).createdAt;
      } catch {
        created = (await stat(dir).catch(() => null))?.mtimeMs ?? 0;
      }
      if (Date.now() - created > this.ttlMs) {
        await rm(dir, { recursive: true, force: true }).catch(() => undefined);
        removed++;
      }
    }
    return removed;
  }
}

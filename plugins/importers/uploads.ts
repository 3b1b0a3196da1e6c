import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import type { Identity } from '../../kernel/sdk.js';
import { analyseUpload, PROFILE_TASK_FILE, type Analysis } from './analyse.js';
import { ImportUploadInvalidError, ImportUploadNotFoundError } from './errors.js';
import type { ImporterDeps } from './import-context.js';
import { receiveImport } from './receive-upload.js';
import type { UploadRow } from './store.js';

export interface ValidateView {
  valid: boolean;
  detectedFormat: string | null;
  confidence: number;
  summary: Record<string, number>;
  acfFields: string[];
  warnings: Array<{ message: string; line?: number }>;
  blockedReasons: string[];
  uploadId: string;
}

export interface ReceivedUpload {
  uploadId: string;
  workDir: string;
  filePath: string;
  spoolPath: string;
  filename: string;
  size: number;
  fields: Record<string, string>;
}

/**
 * Uploads and their analysis: a multipart upload streams into a job folder under <data>/imports/<uploadId>/
 * (the only place an import writes files), the worker pool detects and parses it, the upload record keeps
 * the result for the preview and the run.
 */
export class ImportUploads {
  constructor(
    private readonly deps: ImporterDeps,
    readonly root: string,
  ) {}

  sources() {
    return {
      sources: this.deps.formats.list().map((f) => ({
        format: f.format,
        label: f.label,
        extensions: f.extensions,
        description: f.description ?? '',
        features: f.features,
      })),
    };
  }

  /** Streams a multipart upload into a new job folder. */
  async receive(ctx: Context): Promise<ReceivedUpload> {
    // While the upload streams in, a pool thread loads the profile task (an empty input is refused at once).
    void this.deps.pool.run('importProfile', {}, PROFILE_TASK_FILE).catch(() => undefined);
    const uploadId = randomUUID();
    const workDir = join(this.root, uploadId);
    await mkdir(workDir, { recursive: true, mode: 0o700 });
    try {
      const filePath = join(workDir, 'upload.bin');
      const received = await receiveImport(ctx, filePath, this.deps.options.maxBytes);
      const filename = (received.filename || 'upload').replace(/[\\/]/g, '_').slice(0, 255);
      return {
        uploadId,
        workDir,
        filePath,
        spoolPath: join(workDir, 'entities.ndjson'),
        filename,
        size: received.size,
        fields: received.fields,
      };
    } catch (err) {
      await rm(workDir, { recursive: true, force: true });
      throw err;
    }
  }

  async analyse(upload: ReceivedUpload, hint: string | undefined, onStep?: (step: 'detecting' | 'parsing') => void): Promise<Analysis> {
    return analyseUpload(
      { pool: this.deps.pool, formats: this.deps.formats, maxDepth: this.deps.options.maxDepth, limits: this.deps.options },
      {
        path: upload.filePath,
        filename: upload.filename,
        size: upload.size,
        workDir: upload.workDir,
        spoolPath: upload.spoolPath,
        hint: hint || undefined,
        fields: upload.fields,
      },
      onStep,
    );
  }

  /** Records the analysed upload (per tenant and user; in the database, so preview and run work on any instance sharing the data folder). */
  async record(identity: Identity, upload: ReceivedUpload, analysis: Analysis): Promise<ValidateView> {
    const valid = analysis.format !== null && analysis.blockedReasons.length === 0;
    await this.deps.store.uploads.create({
      id: upload.uploadId,
      tenant_id: identity.tenantId,
      user_id: identity.userId,
      filename: upload.filename,
      size: upload.size,
      valid,
      format: analysis.format,
      confidence: analysis.confidence,
      summary: JSON.stringify(analysis.summary),
      work_dir: upload.workDir,
      file_path: upload.filePath,
      spool_path: upload.spoolPath,
      created_at: Date.now(),
    });
    if (!valid) await rm(upload.workDir, { recursive: true, force: true });
    return {
      valid,
      detectedFormat: analysis.format,
      confidence: Math.round(analysis.confidence * 1000) / 1000,
      summary: analysis.summary.counts,
      acfFields: analysis.summary.acfFields ?? [],
      warnings: analysis.warnings,
      blockedReasons: analysis.blockedReasons,
      uploadId: upload.uploadId,
    };
  }

  async validate(ctx: Context, identity: Identity): Promise<ValidateView> {
    const upload = await this.receive(ctx);
    try {
      return await this.record(identity, upload, await this.analyse(upload, upload.fields.format));
    } catch (err) {
      await rm(upload.workDir, { recursive: true, force: true });
      throw err;
    }
  }

  /** The caller's upload (the latest valid one without an id): valid, its files present. */
  async uploadFor(identity: Identity, uploadId?: string): Promise<UploadRow> {
    const where = { tenant_id: identity.tenantId, user_id: identity.userId };
    const row = uploadId
      ? await this.deps.store.uploads.findOne({ where: { ...where, id: uploadId } })
      : await this.deps.store.uploads.findOne({ where: { ...where, valid: true }, order: [['created_at', 'DESC']] });
    if (!row) throw new ImportUploadNotFoundError(uploadId);
    if (!row.valid) throw new ImportUploadInvalidError(`Upload '${row.id}' did not validate; fix the file and validate it again`);
    if (!existsSync(row.spool_path))
      throw new ImportUploadInvalidError(
        `The files of upload '${row.id}' are gone (imported already or past retention); validate the file again`,
      );
    return row;
  }
}

import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import { Op } from 'sequelize';
import { AppError, ForbiddenError } from '../../kernel/errors.js';
import { hasPermission, type Identity } from '../../kernel/http/identity.js';
import type { JobQueue } from '../../kernel/jobs.js';
import type { Logger } from '../../kernel/logger.js';
import type { WorkerPool } from '../../kernel/pool.js';
import type { ImportParseSummary } from '../../kernel/registries/contracts.js';
import { analyseUpload, type Analysis, type FormatsView } from './analyse.js';
import {
  ImportAlreadyRunError,
  ImportFormatMismatchError,
  ImportJobNotFoundError,
  ImportNotConfirmedError,
  ImportPlanNotFoundError,
  ImportUploadInvalidError,
  ImportUploadNotFoundError,
} from './errors.js';
import type { ImporterOptions } from './options.js';
import { buildPlan, type EntityMapping, type ImportPlan, type SafetyMode } from './planner.js';
import type { ContentClientFactory, MediaClientFactory } from './ports.js';
import { receiveImport } from './receive-upload.js';
import { runImport, type RunOutcome } from './runner.js';
import type { ImportStore, JobRow, UploadRow } from './store.js';

export const JOB_TYPE = 'importers.run';

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

interface StoredPlan extends ImportPlan {
  identity: Identity;
}

/** The parts of an identity a background run acts as (no session or token material). */
const identitySnapshot = (i: Identity): Identity => ({
  kind: i.kind,
  userId: i.userId,
  role: i.role,
  permissions: [...i.permissions],
  tenantId: i.tenantId,
});

/**
 * The importer flow: uploads into a job folder under <data>/imports/<uploadId>/ (the only place an
 * import writes files), analysis in the worker pool, plans, runs (inline below the threshold, else a
 * kernel background job), job views, and the retention sweep of job folders.
 */
export class ImportersService {
  readonly root: string;
  private readonly running = new Set<string>();

  constructor(
    private readonly deps: {
      store: ImportStore;
      pool: WorkerPool;
      formats: FormatsView;
      jobs: JobQueue;
      logger: Logger;
      options: ImporterOptions;
      dataPath: string;
      /** Aborted when the instance stops (kernelState.stopping). */
      stopping?: AbortSignal;
      contentClient: () => ContentClientFactory;
      mediaClient: () => MediaClientFactory;
    },
  ) {
    this.root = join(deps.dataPath, 'imports');
  }

  get options(): ImporterOptions {
    return this.deps.options;
  }

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

  private async uploadFor(identity: Identity, uploadId?: string): Promise<UploadRow> {
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

  async preview(
    identity: Identity,
    body: { format: string; uploadId?: string; mappings?: Record<string, EntityMapping>; scaffold?: boolean; mode?: SafetyMode },
  ) {
    const upload = await this.uploadFor(identity, body.uploadId);
    if (upload.format !== body.format) {
      throw new ImportFormatMismatchError(
        `Upload '${upload.id}' was validated as '${upload.format}', not '${body.format}'; validate it again with the format hint '${body.format}'`,
      );
    }
    const scaffold = body.scaffold ?? false;
    if (scaffold && !hasPermission(identity, 'collections:manage'))
      throw new ForbiddenError("Scaffold mode creates collections: it needs the permission 'collections:manage'");
    const summary = JSON.parse(upload.summary) as ImportParseSummary;
    const content = this.deps.contentClient()(identity);
    const collections = await content.collections.list();
    const linked = await this.deps.store.countLinks(identity.tenantId, upload.format!);
    const plan = buildPlan({
      planId: randomUUID(),
      uploadId: upload.id,
      format: upload.format!,
      filename: upload.filename,
      summary,
      collections,
      scaffold,
      mode: body.mode ?? 'add',
      mappings: body.mappings,
      linked,
    });
    const stored: StoredPlan = { ...plan, identity: identitySnapshot(identity) };
    await this.deps.store.plans.create({
      id: plan.planId,
      tenant_id: identity.tenantId,
      upload_id: upload.id,
      plan: JSON.stringify(stored),
      job_id: null,
      created_at: Date.now(),
    });
    return this.planView(plan);
  }

  planView(plan: ImportPlan) {
    return {
      planId: plan.planId,
      uploadId: plan.uploadId,
      format: plan.format,
      scaffold: plan.scaffold,
      mode: plan.mode,
      fieldMappings: plan.fieldMappings,
      operations: plan.operations,
      estimatedDurationMs: plan.estimatedDurationMs,
      collections: plan.scaffoldCollections.map((c) => ({ name: c.name, fields: c.fields, widgets: c.widgets })),
    };
  }

  /** Claims the plan (one run per plan: a second claim is 409) and creates its job row. */
  private async claim(identity: Identity, planId: string): Promise<{ job: JobRow; plan: StoredPlan; upload: UploadRow }> {
    const row = await this.deps.store.plans.findOne({ where: { id: planId, tenant_id: identity.tenantId } });
    if (!row) throw new ImportPlanNotFoundError(planId);
    if (row.job_id) throw new ImportAlreadyRunError(planId, row.job_id);
    const plan = JSON.parse(row.plan) as StoredPlan;
    const upload = await this.deps.store.uploads.findOne({ where: { id: row.upload_id, tenant_id: identity.tenantId } });
    if (!upload || !existsSync(upload.spool_path))
      throw new ImportUploadInvalidError(
        `The files of upload '${row.upload_id}' are gone (imported already or past retention); validate the file again`,
      );
    const jobId = randomUUID();
    const [changed] = await this.deps.store.plans.update({ job_id: jobId }, { where: { id: planId, job_id: null } });
    if (changed !== 1) throw new ImportAlreadyRunError(planId, null);
    const results = Object.fromEntries(plan.operations.map((o) => [o.sourceType, { imported: 0, failed: 0, skipped: 0, updated: 0 }]));
    const job = await this.deps.store.jobs.create({
      id: jobId,
      tenant_id: identity.tenantId,
      plan_id: planId,
      format: plan.format,
      status: 'processing',
      processed: 0,
      total: plan.operations.reduce((n, o) => n + o.count, 0),
      results: JSON.stringify(results),
      warnings: '[]',
      error: null,
      started_at: Date.now(),
      completed_at: null,
    });
    return { job, plan, upload };
  }

  async run(identity: Identity, body: { planId: string; confirmed: boolean }) {
    if (body.confirmed !== true) throw new ImportNotConfirmedError();
    const { job, plan } = await this.claim(identity, body.planId);
    if (plan.total < this.deps.options.inlineThreshold) {
      await this.execute(job.id);
      return {
        success: true,
        jobId: job.id,
        status: 'processing' as const,
        message: `Imported inline (${plan.total} entities): GET /api/importers/jobs/${job.id} shows the results`,
      };
    }
    // Attempts cover a crashed instance: the next claim resumes after the entities already written.
    await this.deps.jobs.enqueue(JOB_TYPE, { importJobId: job.id }, { tenantId: identity.tenantId, maxAttempts: 3 });
    return {
      success: true,
      jobId: job.id,
      status: 'processing' as const,
      message: `Import of ${plan.total} entities started in the background: poll GET /api/importers/jobs/${job.id}`,
    };
  }

  /** Runs a claimed import job to its end (inline, from the background job handler, or for the stream); never throws. */
  async execute(
    jobId: string,
    hooks: {
      progress?: (processed: number, total: number) => Promise<void> | void;
      /** The stream's client went away: stop between batches and finish with what was written. */
      shouldStop?: () => boolean;
      /**
       * The background job's instance is stopping: stop between batches, save where the run is, and answer
       * 'interrupted' (the job handler queues it again). Without it (inline runs, the stream) a stopping
       * instance hands the rest of the run to a background job, which resumes it on the next start.
       */
      interrupted?: () => boolean;
    } = {},
  ): Promise<RunOutcome | 'interrupted' | null> {
    const handOver = !hooks.interrupted;
    const interrupted = hooks.interrupted ?? (() => this.deps.stopping?.aborted === true);
    const { store } = this.deps;
    const job = await store.jobs.findByPk(jobId);
    if (!job || this.running.has(jobId)) return null;
    this.running.add(jobId);
    const scaffolded: string[] = [];
    let identity: Identity | null = null;
    try {
      const planRow = await store.plans.findByPk(job.plan_id);
      const plan = JSON.parse(planRow!.plan) as StoredPlan;
      const upload = (await store.uploads.findByPk(plan.uploadId))!;
      identity = plan.identity;
      // A job interrupted by a shutdown resumes after the entities it had written, with its counts so far.
      const resume =
        job.processed > 0 && job.completed_at === null
          ? {
              processed: job.processed,
              results: JSON.parse(job.results) as RunOutcome['results'],
              warnings: JSON.parse(job.warnings) as RunOutcome['warnings'],
            }
          : undefined;
      const outcome = await runImport({
        scaffolded,
        resume,
        plan,
        identity: plan.identity,
        spoolPath: upload.spool_path,
        workDir: upload.work_dir,
        store,
        content: this.deps.contentClient()(plan.identity),
        media: this.deps.mediaClient()(plan.identity),
        batchSize: this.deps.options.batchSize,
        ...(this.deps.options.fetchRemote
          ? {
              fetchRemote: {
                maxBytes: this.deps.options.fetchMaxBytes,
                timeoutMs: this.deps.options.fetchTimeoutMs,
                allowPrivate: this.deps.options.fetchAllowPrivate,
              },
            }
          : {}),
        shouldStop: () => Boolean(hooks.shouldStop?.() || interrupted()),
        progress: async (processed, total) => {
          await store.jobs.update({ processed, total }, { where: { id: jobId } });
          await hooks.progress?.(processed, total);
        },
      });
      if (interrupted() && outcome.processed < outcome.total) {
        await store.jobs.update(
          {
            processed: outcome.processed,
            results: JSON.stringify(outcome.results),
            warnings: JSON.stringify(outcome.warnings.slice(0, 400)),
          },
          { where: { id: jobId } },
        );
        if (handOver) await this.deps.jobs.enqueue(JOB_TYPE, { importJobId: jobId }, { tenantId: job.tenant_id, maxAttempts: 3 });
        this.deps.logger.info(
          { jobId, processed: outcome.processed, total: outcome.total },
          'import interrupted by shutdown; it resumes as a background job',
        );
        return 'interrupted';
      }
      const kept = await this.dropEmptyScaffolds(plan.identity, outcome.scaffolded);
      const summary = JSON.parse(upload.summary) as ImportParseSummary;
      // Records the parser refused (CSV strict mode) count as failed; each has its line-numbered warning.
      for (const [entity, n] of Object.entries(summary.refused ?? {}))
        if (outcome.results[entity] && n > 0) outcome.results[entity].failed += n;
      // The analysis's per-line warnings (malformed rows...) stay with the result, after the run's own.
      const parsed = summary.warnings ?? [];
      const warnings = [...kept, ...outcome.warnings, ...parsed.map((w) => ({ ...w, message: `while reading: ${w.message}` }))].slice(
        0,
        400,
      );
      await store.jobs.update(
        {
          status: 'completed',
          processed: outcome.processed,
          results: JSON.stringify(outcome.results),
          warnings: JSON.stringify(warnings),
          completed_at: Date.now(),
        },
        { where: { id: jobId } },
      );
      await rm(upload.work_dir, { recursive: true, force: true });
      return outcome;
    } catch (err) {
      this.deps.logger.warn({ err, jobId }, 'import failed');
      const dropped = identity && scaffolded.length ? await this.dropEmptyScaffolds(identity, scaffolded).catch(() => []) : [];
      const message = [
        err instanceof AppError ? err.message : 'The import failed (see the server log)',
        ...dropped.map((d) => d.message),
      ].join('; ');
      await store.jobs
        .update({ status: 'failed', error: message, completed_at: Date.now() }, { where: { id: jobId } })
        .catch(() => undefined);
      return null;
    } finally {
      this.running.delete(jobId);
    }
  }

  /**
   * A collection this run scaffolded that ended up empty (nothing imported, or everything failed) is
   * removed again, so a failed run leaves no empty collection behind; the warnings say so.
   */
  private async dropEmptyScaffolds(identity: Identity, scaffolded: string[]): Promise<Array<{ message: string }>> {
    const notes: Array<{ message: string }> = [];
    const content = this.deps.contentClient()(identity);
    for (const name of scaffolded) {
      try {
        if ((await content.entries(name).list({ limit: 1 })).total > 0) continue;
        await content.collections.remove(name);
        notes.push({ message: `collection '${name}' was created for this import and removed again: nothing was imported into it` });
      } catch (err) {
        this.deps.logger.warn({ err, collection: name }, 'empty scaffolded collection not removed');
        notes.push({
          message: `collection '${name}' was created for this import and is empty; it could not be removed (see the server log)`,
        });
      }
    }
    return notes;
  }

  async job(identity: Identity, jobId: string) {
    const row = await this.deps.store.jobs.findOne({ where: { id: jobId, tenant_id: identity.tenantId } });
    if (!row) throw new ImportJobNotFoundError(jobId);
    const end = row.completed_at === null ? null : Number(row.completed_at);
    return {
      jobId: row.id,
      status: row.status,
      format: row.format,
      progress: { processed: row.processed, total: row.total },
      results: JSON.parse(row.results) as Record<string, { imported: number; failed: number; skipped: number }>,
      durationMs: (end ?? Date.now()) - Number(row.started_at),
      completedAt: end === null ? null : new Date(end).toISOString(),
      warnings: JSON.parse(row.warnings) as Array<{ message: string; line?: number }>,
      ...(row.error ? { error: row.error } : {}),
    };
  }

  /** Creates a plan and its claimed job for the stream (no separate preview/run). */
  async planAndClaim(identity: Identity, uploadId: string, format: string, options: { collection?: string; scaffold: boolean }) {
    const upload = await this.uploadFor(identity, uploadId);
    const summary = JSON.parse(upload.summary) as ImportParseSummary;
    const entities = Object.entries(summary.counts).sort((a, b) => b[1] - a[1]);
    const mappings: Record<string, EntityMapping> = {};
    if (options.collection && entities[0]) mappings[entities[0][0]] = options.collection;
    const view = await this.preview(identity, { format, uploadId, scaffold: options.scaffold, mappings });
    return { view, ...(await this.claim(identity, view.planId)) };
  }

  /** Removes job folders and upload records past the retention time (and crash leftovers). */
  async sweep(now = Date.now()): Promise<number> {
    const cutoff = now - this.deps.options.retentionHours * 3600 * 1000;
    const old = await this.deps.store.uploads.findAll({ where: { created_at: { [Op.lt]: cutoff } } });
    for (const u of old) await rm(u.work_dir, { recursive: true, force: true });
    let removed = old.length;
    await this.deps.store.uploads.destroy({ where: { created_at: { [Op.lt]: cutoff } } });
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      const path = join(this.root, name);
      const st = await stat(path).catch(() => null);
      if (st && st.mtimeMs < cutoff) {
        await rm(path, { recursive: true, force: true });
        removed++;
      }
    }
    return removed;
  }
}

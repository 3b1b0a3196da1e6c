import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import stringify from 'safe-stable-stringify';
import { Op } from 'sequelize';
import {
  AppError,
  ForbiddenError,
  ServiceUnavailableError,
  ValidationError,
  hasPermission,
  type Identity,
  JobInterruptedError,
  type JobQueue,
  type Logger,
  type WorkerPool,
  DIST_ROOT,
  type ImportParseSummary,
} from '../../kernel/sdk.js';
import type {
  ApplyAnswer,
  DataJobView,
  DataOperation,
  DataOpsEngine,
  DomainContext,
  PlanDraft,
  StoredPlan as DataPlan,
  Summary,
  VerifyResult,
} from '../data-ops/public.js';
import { analyseUpload, PROFILE_TASK_FILE, type Analysis, type FormatsView } from './analyse.js';
import {
  ImportAlreadyRunError,
  ImportFailedError,
  ImportFormatMismatchError,
  ImportJobNotFoundError,
  ImportNotConfirmedError,
  ImportPlanNotFoundError,
  ImportUploadInvalidError,
  ImportUploadNotFoundError,
} from './errors.js';
import type { ImporterOptions } from './options.js';
import { isCollectionName } from './field-names.js';
import { buildPlan, type EntityMapping, type ImportPlan, type SafetyMode, type StatusPolicy } from './planner.js';
import type { ContentClientFactory, MediaClientFactory } from './ports.js';
import { receiveImport } from './receive-upload.js';
import type { PrepareResult } from './prepare-batch.js';
import { runImport, type RunOutcome } from './runner.js';
import type { ImportStore, JobRow, UploadRow } from './store.js';

export const JOB_TYPE = 'importers.run';
/** The pool task file that prepares spool records for writing (prepare-task.ts). */
const PREPARE_TASK_FILE = join(DIST_ROOT, 'plugins', 'importers', 'prepare-task.js');
/** The importers' data domain (the engine's domain id and the audit entries' `domain`). */
export const IMPORTER_DOMAIN = 'importer';

/** The normalised input of an importer plan (stored with the engine's plan). */
export interface ImportInput {
  format: string;
  uploadId: string;
  mappings?: Record<string, EntityMapping>;
  scaffold: boolean;
  /** keep the source's statuses or import everything as drafts (default per target: see planner.ts). */
  statuses?: StatusPolicy;
  /** The import job this plan's run gets (assigned when it is planned: one run per plan). */
  jobId: string;
}

/** A past run in GET /api/importers/runs. */
export interface RunSummary {
  jobId: string;
  format: string;
  source: string;
  filename: string | null;
  status: JobRow['status'];
  startedAt: string;
  completedAt: string | null;
  by: { userId: string | null; name: string | null };
  counts: { imported: number; updated: number; skipped: number; failed: number };
  targets: Array<{ sourceType: string; targetCollection: string; target: 'new' | 'existing'; statuses: StatusPolicy; count: number }>;
}

/** What a stream (POST /api/migration/import) follows an inline run with. */
export interface RunHooks {
  progress?: (processed: number, total: number) => Promise<void> | void;
  shouldStop?: () => boolean;
}

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
  /** The uploaded file's name (past runs show it after the upload record is swept). */
  filename?: string;
  /** The engine plan's target hash (a resumed run answers it as its snapshot). */
  targetHash?: string;
  /** The import job id assigned when planned. */
  jobId?: string;
}

/** The plan's own first operation: the run itself (count 0); it carries the importer's plan. */
interface RunPayload {
  plan: Omit<ImportPlan, 'planId'>;
}

/** Engine summary of a run's per-entity results: created = imported - updated. */
function summaryOf(results: RunOutcome['results']): Summary {
  const summary: Summary = { created: 0, updated: 0, deleted: 0, skipped: 0, failed: 0 };
  for (const r of Object.values(results)) {
    summary.created += Math.max(0, r.imported - r.updated);
    summary.updated += r.updated;
    summary.skipped += r.skipped;
    summary.failed += r.failed;
  }
  return summary;
}

/** The short name new collections are suffixed with: the first word of the format's label (`Strapi export` -> `strapi`). */
export function sourceTagOf(label: string): string {
  const word = /[A-Za-z][A-Za-z0-9]*/.exec(label)?.[0]?.toLowerCase() ?? '';
  return word.slice(0, 16) || 'import';
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
  /** The hooks of streamed inline runs, by import job id (the domain's apply runs on this instance). */
  private readonly hooks = new Map<string, RunHooks>();

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
      /** The data-operation engine (plugin data-ops). */
      dataOps: () => DataOpsEngine | undefined;
      /** User names for past runs (plugin auth's users service, when there). */
      userName?: (userId: string) => Promise<string | null>;
    },
  ) {
    this.root = join(deps.dataPath, 'imports');
  }

  get options(): ImporterOptions {
    return this.deps.options;
  }

  private engine(): DataOpsEngine {
    const engine = this.deps.dataOps();
    if (!engine) throw new ServiceUnavailableError('The data-operation engine (plugin data-ops) is not available');
    return engine;
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

  /** The domain's validate: the upload (the caller's, valid, files present), its format, scaffold permission, mapping names. */
  async validateInput(
    identity: Identity,
    body: { format: string; uploadId?: string; mappings?: Record<string, EntityMapping>; scaffold?: boolean; statuses?: StatusPolicy },
  ): Promise<ImportInput> {
    const upload = await this.uploadFor(identity, body.uploadId);
    if (upload.format !== body.format) {
      throw new ImportFormatMismatchError(
        `Upload '${upload.id}' was validated as '${upload.format}', not '${body.format}'; validate it again with the format hint '${body.format}'`,
      );
    }
    const scaffold = body.scaffold ?? false;
    if (scaffold && !hasPermission(identity, 'collections:manage'))
      throw new ForbiddenError("Scaffold mode creates collections: it needs the permission 'collections:manage'");
    for (const [entity, m] of Object.entries(body.mappings ?? {})) {
      const name = typeof m === 'string' ? m : m && typeof m === 'object' ? m.collection : undefined;
      if (name !== undefined && !isCollectionName(name)) {
        const message = 'lower-case letters, digits and _, starting with a letter, at most 48 (not presets, schema or batch)';
        throw new ValidationError(`'${name}' is not a valid collection name: ${message}`, [{ path: `body.mappings.${entity}`, message }]);
      }
    }
    return {
      format: body.format,
      uploadId: upload.id,
      ...(body.mappings ? { mappings: body.mappings } : {}),
      scaffold,
      ...(body.statuses ? { statuses: body.statuses } : {}),
      jobId: randomUUID(),
    };
  }

  /** The importer's plan of an input against the current collections and ledger (no mutation). */
  private async importPlanOf(input: ImportInput, mode: SafetyMode, identity: Identity) {
    const upload = await this.deps.store.uploads.findOne({ where: { id: input.uploadId, tenant_id: identity.tenantId } });
    if (!upload) throw new ImportUploadNotFoundError(input.uploadId);
    const summary = JSON.parse(upload.summary) as ImportParseSummary;
    const collections = await this.deps.contentClient()(identity).collections.list();
    const linked = await this.deps.store.countLinks(identity.tenantId, input.format);
    const label = this.deps.formats.list().find((f) => f.format === input.format)?.label ?? input.format;
    const plan = buildPlan({
      sourceTag: sourceTagOf(label),
      sourceLabel: label,
      ...(input.statuses ? { statuses: input.statuses } : {}),
      planId: '',
      uploadId: upload.id,
      format: input.format,
      filename: upload.filename,
      summary,
      collections,
      scaffold: input.scaffold,
      mode,
      mappings: input.mappings,
      linked,
    });
    return { plan, collections, linked };
  }

  /**
   * The domain's snapshot: a hash of what the plan depends on: the target collections' fields (or their
   * absence) and the ledger's record counts of this format in them. A run that has begun answers its
   * plan's hash (its own writes changed the target; a resumed background run must not be refused as stale).
   */
  async snapshotOf(input: ImportInput, identity: Identity): Promise<string> {
    const job = await this.deps.store.jobs.findByPk(input.jobId);
    if (job && job.begun_at !== null && job.begun_at !== undefined) {
      const row = await this.deps.store.plans.findByPk(job.plan_id);
      const stored = row ? (JSON.parse(row.plan) as StoredPlan) : null;
      if (stored?.targetHash) return stored.targetHash;
    }
    const { plan, collections, linked } = await this.importPlanOf(input, 'add', identity);
    const targets: Record<string, string[] | null> = {};
    const links: Record<string, number> = {};
    for (const o of plan.operations) {
      if (!o.targetCollection) continue;
      const c = collections.find((x) => x.name === o.targetCollection);
      targets[o.targetCollection] = c ? c.fields.map((f) => `${f.name}:${f.type}`).sort() : null;
      links[`${o.sourceType}>${o.targetCollection}`] = linked[o.sourceType]?.[o.targetCollection] ?? 0;
    }
    return createHash('sha256')
      .update(stringify({ format: input.format, targets, links }) ?? '')
      .digest('hex');
  }

  /**
   * The domain's plan: first the run itself (`create import <format>`, count 0, carrying the importer's
   * plan), then each collection scaffolded (`create collection`, count 0), then per source entity its
   * records (`create entry`, or `skip entry` when unmapped) with today's counts. Unmapped entities are
   * warnings, not blocked reasons (the run imports the rest, as before).
   */
  async draftFor(input: ImportInput, mode: SafetyMode, identity: Identity): Promise<PlanDraft> {
    const { plan } = await this.importPlanOf(input, mode, identity);
    const { planId: _planId, ...carried } = plan;
    const payload: RunPayload = { plan: carried };
    const operations: DataOperation[] = [{ action: 'create', type: 'import', target: input.format, count: 0, payload }];
    for (const c of plan.scaffoldCollections) operations.push({ action: 'create', type: 'collection', target: c.name, count: 0 });
    const warnings: PlanDraft['warnings'] = [];
    for (const o of plan.operations) {
      const action = o.action === 'scaffold' ? 'create' : o.action;
      operations.push({ action, type: 'entry', target: `${o.sourceType} -> ${o.targetCollection ?? '-'}`, count: o.count });
      if (o.action === 'skip' && o.note !== 'left out by mappings')
        warnings.push({ message: `${o.sourceType}: ${o.count} record(s) not imported: ${o.note ?? 'not mapped'}`, item: o.sourceType });
    }
    return { operations, warnings, blockedReasons: plan.blockedReasons, targetHash: '' };
  }

  async preview(
    identity: Identity,
    body: {
      format: string;
      uploadId?: string;
      mappings?: Record<string, EntityMapping>;
      scaffold?: boolean;
      mode?: SafetyMode;
      statuses?: StatusPolicy;
    },
  ) {
    const engine = this.engine();
    const { mode, ...request } = body;
    const view = await engine.plan(IMPORTER_DOMAIN, request, mode ?? 'add', identity);
    const stored = await engine.getPlan(view.planId, identity);
    const input = stored.input as ImportInput;
    const carried = (stored.operationsFull.find((o) => o.type === 'import')?.payload as RunPayload).plan;
    const plan: ImportPlan = { ...carried, planId: view.planId };
    const upload = await this.deps.store.uploads.findOne({ where: { id: plan.uploadId, tenant_id: identity.tenantId } });
    const record: StoredPlan = {
      ...plan,
      identity: identitySnapshot(identity),
      targetHash: stored.targetHash,
      jobId: input.jobId,
      ...(upload ? { filename: upload.filename } : {}),
    };
    await this.deps.store.plans.create({
      id: plan.planId,
      tenant_id: identity.tenantId,
      upload_id: plan.uploadId,
      plan: JSON.stringify(record),
      job_id: null,
      created_at: Date.now(),
    });
    return {
      ...this.planView(plan),
      planHash: view.planHash,
      risk: view.risk,
      requiresConfirmation: view.requiresConfirmation,
      summary: view.summary,
      warnings: view.warnings,
      blockedReasons: view.blockedReasons,
      expiresAt: view.expiresAt,
    };
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
      shortcodes: plan.shortcodes ?? [],
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
    const jobId = plan.jobId ?? randomUUID();
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
    const answer = await this.applyClaimed(identity, body.planId, job.id);
    if (answer === 'interrupted' || answer.status === 200) {
      return {
        success: true,
        jobId: job.id,
        status: 'processing' as const,
        message: `Imported inline (${plan.total} entities): GET /api/importers/jobs/${job.id} shows the results`,
      };
    }
    return {
      success: true,
      jobId: job.id,
      status: 'processing' as const,
      message: `Import of ${plan.total} entities started in the background: poll GET /api/importers/jobs/${job.id}`,
    };
  }

  /**
   * Applies a claimed plan through the data-operation engine (confirmation, lock, apply, audit, verify,
   * completion event; a background job at or above the threshold unless `inline`). A refusal before the
   * run began (lock contention, stale, expired...) gives the plan back (the job row is removed), so it can
   * be run again. 'interrupted': the instance is stopping and the run resumes as a background job.
   */
  async applyClaimed(
    identity: Identity,
    planId: string,
    jobId: string,
    options: { inline?: boolean; hooks?: RunHooks } = {},
  ): Promise<ApplyAnswer | 'interrupted'> {
    const engine = this.engine();
    if (options.hooks) this.hooks.set(jobId, options.hooks);
    try {
      const answer = await engine.apply(IMPORTER_DOMAIN, { planId, confirmed: true }, identity, { inline: options.inline === true });
      if (answer.status === 202)
        await this.deps.store.jobs.update({ data_job_id: answer.data.jobId }, { where: { id: jobId } }).catch(() => undefined);
      return answer;
    } catch (err) {
      if (err instanceof JobInterruptedError) return 'interrupted';
      await this.unclaim(planId, jobId).catch((e) => this.deps.logger.warn({ err: e, planId }, 'import plan not released'));
      throw err;
    } finally {
      this.hooks.delete(jobId);
    }
  }

  /** Gives a claimed plan back when its run never began. */
  private async unclaim(planId: string, jobId: string): Promise<void> {
    const job = await this.deps.store.jobs.findByPk(jobId);
    if (!job || (job.begun_at !== null && job.begun_at !== undefined)) return;
    await this.deps.store.jobs.destroy({ where: { id: jobId, begun_at: null } });
    await this.deps.store.plans.update({ job_id: null }, { where: { id: planId, job_id: jobId } });
  }

  /**
   * The domain's apply. Only the plan's first operation (`create import`) does the work: it runs the import
   * job (resuming after the records an interrupted run wrote); the other operations describe it. Per-record
   * skips and failures are reported to the engine (outcome partial when records failed); a run that fails
   * as a whole has already undone what it created (see execute) and throws IMPORT_FAILED (outcome rollback).
   */
  async applyOperation(op: DataOperation, ctx: DomainContext & { plan: DataPlan }): Promise<void> {
    if (op.type !== 'import') return;
    const input = ctx.plan.input as ImportInput;
    const { store } = this.deps;
    const job = await store.jobs.findByPk(input.jobId);
    if (!job) throw new ImportJobNotFoundError(input.jobId);
    if (job.status === 'completed') {
      // The run finished before (an instance stopped between its end and the plan being marked applied).
      const summary = summaryOf(JSON.parse(job.results) as RunOutcome['results']);
      ctx.report?.({ summary, outcome: summary.failed > 0 ? 'partial' : 'success' });
      return;
    }
    if (job.status === 'failed') throw new ImportFailedError(job.error ?? 'The import failed');
    if (job.begun_at === null || job.begun_at === undefined) await store.jobs.update({ begun_at: Date.now() }, { where: { id: job.id } });
    const hooks = this.hooks.get(job.id) ?? {};
    const signal = ctx.signal;
    const outcome = await this.execute(job.id, {
      progress: hooks.progress,
      shouldStop: hooks.shouldStop,
      ...(signal ? { interrupted: () => signal.aborted } : {}),
    });
    if (outcome === 'interrupted') throw new JobInterruptedError();
    if (outcome === null) {
      const failed = await store.jobs.findByPk(job.id);
      throw new ImportFailedError(failed?.error ?? 'The import failed');
    }
    const summary = summaryOf(outcome.results);
    ctx.report?.({ summary, outcome: summary.failed > 0 ? 'partial' : 'success' });
  }

  /** The domain's verify: the run's job completed and went through every record. */
  async verifyRun(plan: DataPlan): Promise<VerifyResult> {
    const input = plan.input as ImportInput;
    const job = await this.deps.store.jobs.findByPk(input.jobId);
    const discrepancies: string[] = [];
    if (!job) discrepancies.push(`import job ${input.jobId} not found`);
    else {
      if (job.status !== 'completed') discrepancies.push(`import job ${job.id} is ${job.status}`);
      if (job.processed !== job.total) discrepancies.push(`${job.processed} of ${job.total} records processed (the run was stopped)`);
    }
    return { ok: discrepancies.length === 0, discrepancies };
  }

  /**
   * GET /api/importers/jobs: the engine's background importer jobs (the shared data-ops jobs shape), each with
   * `importJobId` (the id of GET /api/importers/jobs/:jobId) and, while it runs, the import's own progress.
   * `jobId` may be an engine job id or an import job id.
   */
  async jobsList(identity: Identity, jobId?: string): Promise<Array<DataJobView & { importJobId?: string }>> {
    const engine = this.engine();
    let dataJobId = jobId;
    if (jobId !== undefined) {
      const row = await this.deps.store.jobs.findOne({ where: { id: jobId, tenant_id: identity.tenantId } });
      if (row?.data_job_id) dataJobId = row.data_job_id;
    }
    const jobs = await engine.jobs(IMPORTER_DOMAIN, identity, dataJobId);
    if (!jobs.length) return [];
    const rows = await this.deps.store.jobs.findAll({
      where: { tenant_id: identity.tenantId, data_job_id: { [Op.in]: jobs.map((j) => j.jobId) } },
    });
    const byData = new Map(rows.map((r) => [r.data_job_id, r]));
    return jobs.map((j) => {
      const row = byData.get(j.jobId);
      if (!row) return j;
      const active = j.status === 'queued' || j.status === 'running';
      return { ...j, importJobId: row.id, ...(active ? { progress: { processed: row.processed, total: row.total } } : {}) };
    });
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
    const created: Array<{ collection: string; id: string }> = [];
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
        jobId,
        scaffolded,
        created,
        resume,
        plan,
        identity: plan.identity,
        spoolPath: upload.spool_path,
        workDir: upload.work_dir,
        store,
        content: this.deps.contentClient()(plan.identity),
        media: this.deps.mediaClient()(plan.identity),
        batchSize: this.deps.options.batchSize,
        prepare: (task) => this.deps.pool.run<PrepareResult>('prepareImportBatch', task, PREPARE_TASK_FILE),
        prepareAhead: Math.max(1, this.deps.pool.stats().maxThreads),
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
      // Rollback: the entries this execution created are removed again (with their ledger rows), then the
      // collections it scaffolded that are empty now. Updates (merge) and media records stay.
      const undone = identity && created.length ? await this.removeCreated(identity, created) : [];
      const dropped = identity && scaffolded.length ? await this.dropEmptyScaffolds(identity, scaffolded).catch(() => []) : [];
      const message = [
        err instanceof AppError ? err.message : 'The import failed (see the server log)',
        ...undone.map((d) => d.message),
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

  /** Removes entries a failed run created (by collection, 500 at a time) and their ledger rows; never throws. */
  private async removeCreated(identity: Identity, created: Array<{ collection: string; id: string }>): Promise<Array<{ message: string }>> {
    const content = this.deps.contentClient()(identity);
    const byCollection = new Map<string, string[]>();
    for (const c of created) (byCollection.get(c.collection) ?? byCollection.set(c.collection, []).get(c.collection)!).push(c.id);
    const notes: Array<{ message: string }> = [];
    for (const [collection, ids] of byCollection) {
      let removed = 0;
      try {
        for (let i = 0; i < ids.length; i += 500) {
          const chunk = ids.slice(i, i + 500);
          removed += await content.entries(collection).removeMany(chunk);
          await this.deps.store.links.destroy({
            where: { tenant_id: identity.tenantId, collection, entry_id: { [Op.in]: chunk } },
          });
        }
        notes.push({ message: `the ${removed} entries this run created in '${collection}' were removed again` });
      } catch (err) {
        this.deps.logger.warn({ err, collection }, 'entries of a failed import not removed');
        notes.push({
          message: `${ids.length - removed} entries this run created in '${collection}' could not be removed (see the server log)`,
        });
      }
    }
    return notes;
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
    let row = await this.deps.store.jobs.findOne({ where: { id: jobId, tenant_id: identity.tenantId } });
    if (!row) throw new ImportJobNotFoundError(jobId);
    if (row.status === 'processing' && (row.begun_at === null || row.begun_at === undefined) && row.data_job_id)
      row = await this.checkNeverBegun(identity, row);
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

  /**
   * A background run whose engine job ended without beginning the import (the lock stayed taken through
   * every attempt, or the plan went stale or expired) is marked failed, so its view does not stay processing.
   */
  private async checkNeverBegun(identity: Identity, row: JobRow): Promise<JobRow> {
    const engine = this.deps.dataOps();
    const [dataJob] = engine ? await engine.jobs(IMPORTER_DOMAIN, identity, row.data_job_id!).catch(() => []) : [];
    const over = dataJob && (dataJob.status === 'failed' || (dataJob.status === 'completed' && dataJob.outcome === 'failure'));
    if (!over) return row;
    const error =
      'The background run never began: another data operation of this tenant held the importer lock through every attempt, or the target changed since the preview (PLAN_STALE); preview again';
    await this.deps.store.jobs.update(
      { status: 'failed', error, completed_at: Date.now() },
      { where: { id: row.id, status: 'processing', begun_at: null } },
    );
    return (await this.deps.store.jobs.findByPk(row.id)) ?? row;
  }

  /**
   * Past runs of the caller's tenant, newest first (at most `limit`, 100): source, file, when, who, the
   * targets with their status policy, the counts and the result.
   */
  async runs(identity: Identity, limit = 50): Promise<RunSummary[]> {
    const { store } = this.deps;
    const rows = await store.jobs.findAll({
      where: { tenant_id: identity.tenantId },
      order: [['started_at', 'DESC']],
      limit: Math.max(1, Math.min(100, limit)),
    });
    const plans = await store.plans.findAll({ where: { tenant_id: identity.tenantId, id: { [Op.in]: rows.map((r) => r.plan_id) } } });
    const byId = new Map(plans.map((p) => [p.id, JSON.parse(p.plan) as StoredPlan]));
    const names = new Map<string, string | null>();
    for (const plan of byId.values()) {
      const userId = plan.identity?.userId;
      if (userId && !names.has(userId) && this.deps.userName) names.set(userId, await this.deps.userName(userId).catch(() => null));
    }
    return rows.map((row) => this.runSummary(row, byId.get(row.plan_id), names));
  }

  private runSummary(row: JobRow, plan: StoredPlan | undefined, names: Map<string, string | null>): RunSummary {
    const results = JSON.parse(row.results) as RunOutcome['results'];
    const counts = { imported: 0, updated: 0, skipped: 0, failed: 0 };
    for (const r of Object.values(results)) {
      counts.imported += r.imported;
      counts.updated += r.updated;
      counts.skipped += r.skipped;
      counts.failed += r.failed;
    }
    const userId = plan?.identity?.userId ?? null;
    const label = this.deps.formats.list().find((f) => f.format === row.format)?.label ?? row.format;
    return {
      jobId: row.id,
      format: row.format,
      source: label,
      filename: plan?.filename ?? null,
      status: row.status,
      startedAt: new Date(Number(row.started_at)).toISOString(),
      completedAt: row.completed_at === null ? null : new Date(Number(row.completed_at)).toISOString(),
      by: { userId, name: userId ? (names.get(userId) ?? null) : null },
      counts,
      targets: (plan?.operations ?? [])
        .filter((o) => o.targetCollection && o.action !== 'skip')
        .map((o) => ({
          sourceType: o.sourceType,
          targetCollection: o.targetCollection!,
          target: o.target ?? 'existing',
          statuses: o.statuses ?? 'keep',
          count: o.count,
        })),
    };
  }

  /** One past run again: its summary, per-entity results, warnings (skips and failures with reasons) and the items it wrote. */
  async runView(identity: Identity, jobId: string, page: { offset: number; limit: number }) {
    const { store } = this.deps;
    const row = await store.jobs.findOne({ where: { id: jobId, tenant_id: identity.tenantId } });
    if (!row) throw new ImportJobNotFoundError(jobId);
    const planRow = await store.plans.findOne({ where: { id: row.plan_id, tenant_id: identity.tenantId } });
    const plan = planRow ? (JSON.parse(planRow.plan) as StoredPlan) : undefined;
    const names = new Map<string, string | null>();
    const userId = plan?.identity?.userId;
    if (userId && this.deps.userName) names.set(userId, await this.deps.userName(userId).catch(() => null));
    const where = { tenant_id: identity.tenantId, job_id: row.id };
    const [links, itemsTotal] = await Promise.all([
      store.links.findAll({ where, order: [['id', 'ASC']], offset: page.offset, limit: Math.max(1, Math.min(200, page.limit)) }),
      store.links.count({ where }),
    ]);
    const job = await this.job(identity, jobId);
    return {
      run: this.runSummary(row, plan, names),
      results: job.results,
      warnings: job.warnings,
      ...(job.error ? { error: job.error } : {}),
      items: links.map((l) => ({ entity: l.entity, externalId: l.external_id, collection: l.collection, entryId: l.entry_id })),
      itemsTotal,
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

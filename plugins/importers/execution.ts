import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { type Identity, JobInterruptedError } from '../../kernel/sdk.js';
import type { ApplyAnswer, DataOperation, DomainContext, StoredPlan as DataPlan, VerifyResult } from '../data-ops/public.js';
import {
  ImportAlreadyRunError,
  ImportFailedError,
  ImportJobNotFoundError,
  ImportNotConfirmedError,
  ImportPlanNotFoundError,
  ImportUploadInvalidError,
} from './errors.js';
import {
  engineOf,
  IMPORTER_DOMAIN,
  summaryOf,
  type ImporterDeps,
  type ImportInput,
  type RunHooks,
  type StoredPlan,
} from './import-context.js';
import type { ImportJobRunner } from './run-job.js';
import type { RunOutcome } from './runner.js';
import type { JobRow, UploadRow } from './store.js';

/**
 * Running a plan: the claim (one run per plan), the run through the data-operation engine (inline below
 * the threshold, else a background job), the domain's apply and verify, and giving back a plan whose run
 * never began.
 */
export class ImportExecution {
  /** The hooks of streamed inline runs, by import job id (the domain's apply runs on this instance). */
  private readonly hooks = new Map<string, RunHooks>();

  constructor(
    private readonly deps: ImporterDeps,
    private readonly runner: ImportJobRunner,
  ) {}

  /** Claims the plan (one run per plan: a second claim is 409) and creates its job row. */
  async claim(identity: Identity, planId: string): Promise<{ job: JobRow; plan: StoredPlan; upload: UploadRow }> {
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
    const engine = engineOf(this.deps);
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
    const outcome = await this.runner.execute(job.id, {
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
}

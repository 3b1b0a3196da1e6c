import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Op } from 'sequelize';
import { AppError, type Identity, DIST_ROOT } from '../../kernel/sdk.js';
import type { ImportParseSummary } from './format-contract.js';
import { JOB_TYPE, type ImporterDeps, type StoredPlan } from './import-context.js';
import type { PrepareResult } from './prepare-batch.js';
import { runImport, type RunInput, type RunOutcome } from './runner.js';
import type { JobRow, UploadRow } from './store.js';

/** The pool task file that prepares spool records for writing (prepare-task.ts). */
const PREPARE_TASK_FILE = join(DIST_ROOT, 'plugins', 'importers', 'prepare-task.js');

/** How a caller follows and stops a run (see ImportJobRunner.execute). */
export interface ExecuteHooks {
  progress?: (processed: number, total: number) => Promise<void> | void;
  /** The stream's client went away: stop between batches and finish with what was written. */
  shouldStop?: () => boolean;
  /**
   * The background job's instance is stopping: stop between batches, save where the run is, and answer
   * 'interrupted' (the job handler queues it again). Without it (inline runs, the stream) a stopping
   * instance hands the rest of the run to a background job, which resumes it on the next start.
   */
  interrupted?: () => boolean;
}

/** What a run wrote so far (a failed run removes it again). */
interface Written {
  scaffolded: string[];
  created: Array<{ collection: string; id: string }>;
}

/** A job interrupted by a shutdown resumes after the entities it had written, with its counts so far. */
function resumeOf(job: JobRow): RunInput['resume'] {
  if (!(job.processed > 0 && job.completed_at === null)) return undefined;
  return {
    processed: job.processed,
    results: JSON.parse(job.results) as RunOutcome['results'],
    warnings: JSON.parse(job.warnings) as RunOutcome['warnings'],
  };
}

/**
 * Execution of a claimed import job: the run itself (runner.ts) with its progress saved on the job row,
 * the hand-over to a background job when the instance stops, the completion, and the rollback of a run
 * that fails as a whole.
 */
export class ImportJobRunner {
  private readonly running = new Set<string>();

  constructor(private readonly deps: ImporterDeps) {}

  /** Runs a claimed import job to its end (inline, from the background job handler, or for the stream); never throws. */
  async execute(jobId: string, hooks: ExecuteHooks = {}): Promise<RunOutcome | 'interrupted' | null> {
    const handOver = !hooks.interrupted;
    const interrupted = hooks.interrupted ?? (() => this.deps.stopping?.aborted === true);
    const { store } = this.deps;
    const job = await store.jobs.findByPk(jobId);
    if (!job || this.running.has(jobId)) return null;
    this.running.add(jobId);
    const written: Written = { scaffolded: [], created: [] };
    let identity: Identity | null = null;
    try {
      const planRow = await store.plans.findByPk(job.plan_id);
      const plan = JSON.parse(planRow!.plan) as StoredPlan;
      const upload = (await store.uploads.findByPk(plan.uploadId))!;
      identity = plan.identity;
      const outcome = await runImport(this.runInput(job, plan, upload, written, { ...hooks, interrupted }));
      if (interrupted() && outcome.processed < outcome.total) return await this.saveInterrupted(job, outcome, handOver);
      await this.complete(jobId, plan, upload, outcome);
      return outcome;
    } catch (err) {
      await this.fail(jobId, err, identity, written);
      return null;
    } finally {
      this.running.delete(jobId);
    }
  }

  /** The runner's input for a job: its plan, upload, clients, pool task and progress saving. */
  private runInput(
    job: JobRow,
    plan: StoredPlan,
    upload: UploadRow,
    written: Written,
    hooks: ExecuteHooks & { interrupted: () => boolean },
  ): RunInput {
    const { store, options, pool } = this.deps;
    return {
      jobId: job.id,
      scaffolded: written.scaffolded,
      created: written.created,
      resume: resumeOf(job),
      plan,
      identity: plan.identity,
      spoolPath: upload.spool_path,
      workDir: upload.work_dir,
      store,
      content: this.deps.contentClient()(plan.identity),
      media: this.deps.mediaClient()(plan.identity),
      batchSize: options.batchSize,
      prepare: (task) => pool.run<PrepareResult>('prepareImportBatch', task, PREPARE_TASK_FILE),
      prepareAhead: Math.max(1, pool.stats().maxThreads),
      ...(options.fetchRemote
        ? {
            fetchRemote: {
              maxBytes: options.fetchMaxBytes,
              timeoutMs: options.fetchTimeoutMs,
              allowPrivate: options.fetchAllowPrivate,
            },
          }
        : {}),
      shouldStop: () => Boolean(hooks.shouldStop?.() || hooks.interrupted()),
      progress: async (processed, total) => {
        await store.jobs.update({ processed, total }, { where: { id: job.id } });
        await hooks.progress?.(processed, total);
      },
    };
  }

  /** Saves where an interrupted run is; without the job handler (handOver) a background job resumes it. */
  private async saveInterrupted(job: JobRow, outcome: RunOutcome, handOver: boolean): Promise<'interrupted'> {
    const jobId = job.id;
    await this.deps.store.jobs.update(
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

  /** Marks the job completed with its counts and warnings, and removes the job folder. */
  private async complete(jobId: string, plan: StoredPlan, upload: UploadRow, outcome: RunOutcome): Promise<void> {
    const kept = await this.dropEmptyScaffolds(plan.identity, outcome.scaffolded);
    const summary = JSON.parse(upload.summary) as ImportParseSummary;
    // Records the parser refused (CSV strict mode) count as failed; each has its line-numbered warning.
    for (const [entity, n] of Object.entries(summary.refused ?? {}))
      if (outcome.results[entity] && n > 0) outcome.results[entity].failed += n;
    // The analysis's per-line warnings (malformed rows...) stay with the result, after the run's own.
    const parsed = summary.warnings ?? [];
    const warnings = [...kept, ...outcome.warnings, ...parsed.map((w) => ({ ...w, message: `while reading: ${w.message}` }))].slice(0, 400);
    await this.deps.store.jobs.update(
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
  }

  /**
   * Rollback: the entries this execution created are removed again (with their ledger rows), then the
   * collections it scaffolded that are empty now. Updates (merge) and media records stay. The job is failed.
   */
  private async fail(jobId: string, err: unknown, identity: Identity | null, written: Written): Promise<void> {
    this.deps.logger.warn({ err, jobId }, 'import failed');
    const { created, scaffolded } = written;
    const undone = identity && created.length ? await this.removeCreated(identity, created) : [];
    const dropped = identity && scaffolded.length ? await this.dropEmptyScaffolds(identity, scaffolded).catch(() => []) : [];
    const message = [
      err instanceof AppError ? err.message : 'The import failed (see the server log)',
      ...undone.map((d) => d.message),
      ...dropped.map((d) => d.message),
    ].join('; ');
    await this.deps.store.jobs
      .update({ status: 'failed', error: message, completed_at: Date.now() }, { where: { id: jobId } })
      .catch(() => undefined);
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
}

import { Op } from 'sequelize';
import type { Identity } from '../../kernel/sdk.js';
import type { ImportParseSummary } from './format-contract.js';
import type { DataJobView } from '../data-ops/public.js';
import { ImportJobNotFoundError } from './errors.js';
import type { ImportExecution } from './execution.js';
import { engineOf, formatLabel, IMPORTER_DOMAIN, type ImporterDeps, type RunSummary, type StoredPlan } from './import-context.js';
import type { EntityMapping } from './planner.js';
import type { ImportPlanning } from './planning.js';
import type { RunOutcome } from './runner.js';
import type { JobRow } from './store.js';
import type { ImportUploads } from './uploads.js';

/**
 * Jobs: the views of import jobs and past runs and the stream's plan-and-claim (the retention sweep of job
 * folders and upload records is the service's own, importers-service.ts).
 */
export class ImportJobs {
  constructor(
    private readonly deps: ImporterDeps,
    private readonly parts: { uploads: ImportUploads; planning: ImportPlanning; execution: ImportExecution },
  ) {}

  /**
   * GET /api/importers/jobs: the engine's background importer jobs (the shared data-ops jobs shape), each with
   * `importJobId` (the id of GET /api/importers/jobs/:jobId) and, while it runs, the import's own progress.
   * `jobId` may be an engine job id or an import job id.
   */
  async jobsList(identity: Identity, jobId?: string): Promise<Array<DataJobView & { importJobId?: string }>> {
    const engine = engineOf(this.deps);
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
    const label = formatLabel(this.deps, row.format);
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
      items: links.map((l) => ({
        entity: l.entity,
        externalId: l.external_id,
        collection: l.collection,
        entryId: l.entry_id,
        ...(l.locale ? { locale: l.locale } : {}),
      })),
      itemsTotal,
    };
  }

  /** Creates a plan and its claimed job for the stream (no separate preview/run). */
  async planAndClaim(identity: Identity, uploadId: string, format: string, options: { collection?: string; scaffold: boolean }) {
    const upload = await this.parts.uploads.uploadFor(identity, uploadId);
    const summary = JSON.parse(upload.summary) as ImportParseSummary;
    const entities = Object.entries(summary.counts).sort((a, b) => b[1] - a[1]);
    const mappings: Record<string, EntityMapping> = {};
    if (options.collection && entities[0]) mappings[entities[0][0]] = options.collection;
    const view = await this.parts.planning.preview(identity, { format, uploadId, scaffold: options.scaffold, mappings });
    return { view, ...(await this.parts.execution.claim(identity, view.planId)) };
  }
}

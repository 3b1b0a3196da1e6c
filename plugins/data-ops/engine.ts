import { randomUUID } from 'node:crypto';
import { withBulkHeapGrowth } from '../../kernel/heap-growth.js';
import { AppError, ValidationError, type Identity, JobInterruptedError, type JobView } from '../../kernel/sdk.js';
import {
  changedEntities,
  checkDraft,
  countOf,
  DESTRUCTIVE_MODES,
  emptySummary,
  identityForJob,
  jobView,
  maxRisk,
  planHashOf,
  summarise,
  viewlessPlan,
  type ApplyJobPayload,
  type EngineDeps,
  type RunResult,
} from './engine-parts.js';
import {
  ConfirmationRequiredError,
  DataJobNotFoundError,
  DomainNotFoundError,
  LockContentionError,
  PlanAlreadyAppliedError,
  PlanBlockedError,
  PlanExpiredError,
  PlanHashMismatchError,
  PlanNotFoundError,
} from './errors.js';
import { operationView, viewOf, type StoredPlanRecord } from './plan-store.js';
import {
  DATA_OPS_APPLY_JOB,
  PLAN_TTL_MS,
  type ApplyAnswer,
  type ApplyOptions,
  type ApplyRequest,
  type DataDomainDefinition,
  type DataHistoryItem,
  type DataJobView,
  type DataOpsEngine,
  type DomainContext,
  type Outcome,
  type PlanDraft,
  type PlanView,
  type Risk,
  type SafetyMode,
  type StoredPlan,
  type VerifyResult,
} from './public.js';
import { holdLock, ProgressReporter } from './run-lock.js';
import { finishRun } from './run-finish.js';
import { applyOperations, checkStillCurrent, type RunInput } from './run-transaction.js';

export {
  changedEntities,
  emptySummary,
  planHashOf,
  summarise,
  type ApplyJobPayload,
  type DataOpsOptions,
  type EngineDeps,
  type RunResult,
} from './engine-parts.js';

/**
 * The data-operation engine: Validate -> Snapshot -> Plan -> Confirm -> Lock -> Apply -> Audit -> Verify ->
 * Release for every domain of the `dataDomains` registry. Stateless between calls: plans live in
 * cms_data_plans, background applies in the kernel's job queue, locks in cms_locks, so any instance
 * may plan, another apply, a third run the job.
 */
type RunExtras = { jobId?: string; progress?(processed: number, total: number): Promise<void>; signal?: AbortSignal };

export class DataOpsService implements DataOpsEngine {
  constructor(private readonly deps: EngineDeps) {}

  domain(domainId: string): DataDomainDefinition {
    const domain = this.deps.registries.dataDomains.get(domainId);
    if (!domain) throw new DomainNotFoundError(domainId);
    return domain;
  }

  private context(identity: Identity, domainId: string): DomainContext {
    return {
      tenantId: identity.tenantId,
      actor: { userId: identity.userId, tenantId: identity.tenantId },
      identity,
      logger: this.deps.logger.child({ dataDomain: domainId }),
    };
  }

  async plan(domainId: string, rawInput: unknown, mode: SafetyMode | undefined, identity: Identity): Promise<PlanView> {
    return withBulkHeapGrowth(() => this.planNow(domainId, rawInput, mode, identity));
  }

  private async planNow(domainId: string, rawInput: unknown, mode: SafetyMode | undefined, identity: Identity): Promise<PlanView> {
    const domain = this.domain(domainId);
    const chosen = mode ?? domain.defaultMode;
    if (!domain.modes.includes(chosen)) {
      const message = `Mode '${chosen}' is not available for '${domainId}'; use one of: ${domain.modes.join(', ')}`;
      throw new ValidationError(message, [{ path: 'mode', message }]);
    }
    const ctx = this.context(identity, domainId);
    // Validate: errors (4xx CmsErrors) propagate as they are.
    const input = await domain.validate(rawInput, ctx);
    // Snapshot: best effort.
    const warnings: PlanDraft['warnings'] = [];
    let targetHash = '';
    try {
      targetHash = String(await domain.snapshot(input, ctx));
    } catch (err) {
      ctx.logger.warn({ err }, 'data-operation snapshot failed; planning without a target hash');
      warnings.push({ message: err instanceof AppError && err.expose ? `snapshot failed: ${err.message}` : 'snapshot failed' });
    }
    // Plan: no mutation.
    const draft = await domain.plan(input, chosen, ctx);
    checkDraft(domainId, draft);
    const operationsFull = draft.operations.map((op) => ({ ...op, count: countOf(op) }));
    const allWarnings = [...draft.warnings, ...warnings];
    const risk: Risk = DESTRUCTIVE_MODES.includes(chosen)
      ? 'destructive'
      : maxRisk(draft.risk ?? 'safe', allWarnings.length ? 'warning' : 'safe');
    const now = Date.now();
    const plan: StoredPlan = {
      planId: randomUUID(),
      planHash: planHashOf(domainId, chosen, operationsFull, targetHash),
      domain: domainId,
      mode: chosen,
      risk,
      requiresConfirmation: risk === 'destructive',
      summary: summarise(operationsFull),
      operations: operationsFull.map(operationView),
      warnings: allWarnings,
      blockedReasons: [...draft.blockedReasons],
      expiresAt: new Date(now + PLAN_TTL_MS).toISOString(),
      tenantId: identity.tenantId,
      actor: { userId: identity.userId, tenantId: identity.tenantId },
      input: input ?? null,
      targetHash,
      operationsFull,
      createdAt: new Date(now).toISOString(),
      appliedAt: null,
    };
    await this.deps.store.insert(plan);
    return viewOf(plan);
  }

  async getPlan(planId: string, identity: Identity): Promise<StoredPlan> {
    const plan = typeof planId === 'string' && planId.length <= 64 ? await this.deps.store.get(planId, identity.tenantId) : null;
    if (!plan) throw new PlanNotFoundError(String(planId));
    const { status: _status, jobId: _jobId, ...stored } = plan;
    return stored;
  }

  private async load(domainId: string, planId: string, identity: Identity): Promise<StoredPlanRecord> {
    const plan = typeof planId === 'string' && planId.length <= 64 ? await this.deps.store.get(planId, identity.tenantId) : null;
    if (!plan || plan.domain !== domainId) throw new PlanNotFoundError(String(planId));
    return plan;
  }

  /** A plan a job owned whose job is over without applying it may be applied again. */
  private async stillQueued(plan: StoredPlanRecord): Promise<boolean> {
    if (plan.status !== 'queued') return false;
    if (!plan.jobId) return true;
    const job = await this.deps.jobs.get(plan.jobId).catch(() => null);
    if (!job || job.status === 'failed' || job.status === 'completed') {
      await this.deps.store.release(plan.planId);
      return false;
    }
    return true;
  }

  async apply(domainId: string, request: ApplyRequest, identity: Identity, options: ApplyOptions = {}): Promise<ApplyAnswer> {
    const domain = this.domain(domainId);
    const plan = await this.load(domainId, request.planId, identity);
    // Confirm: the checks, in this order.
    if (plan.status === 'applied' || (await this.stillQueued(plan))) throw new PlanAlreadyAppliedError(plan.planId, plan.jobId);
    if (Date.parse(plan.expiresAt) <= Date.now()) throw new PlanExpiredError(plan.planId, plan.expiresAt);
    if (plan.blockedReasons.length) throw new PlanBlockedError(plan.blockedReasons);
    if (request.planHash !== undefined && request.planHash !== plan.planHash) throw new PlanHashMismatchError(plan.planId);
    if (plan.requiresConfirmation && request.confirmed !== true) throw new ConfirmationRequiredError(plan.planId);

    if (options.inline !== true && changedEntities(plan.operationsFull) >= domain.inlineThreshold) {
      if (!(await this.deps.store.markQueued(plan.planId))) throw new PlanAlreadyAppliedError(plan.planId, null);
      let job: JobView;
      try {
        const payload: ApplyJobPayload = { planId: plan.planId, domain: domainId, identity: identityForJob(identity) };
        job = await this.deps.jobs.enqueue(DATA_OPS_APPLY_JOB, payload, { tenantId: identity.tenantId, maxAttempts: 3 });
      } catch (err) {
        await this.deps.store.release(plan.planId);
        throw err;
      }
      await this.deps.store.setJob(plan.planId, job.jobId);
      return { status: 202, data: { jobId: job.jobId, status: 'queued' } };
    }
    return { status: 200, data: await this.run(domain, plan, identity, {}) };
  }

  /** The job handler's body: runs a queued plan; a lock held elsewhere is thrown (the queue retries). */
  async runJob(
    job: JobView,
    helpers: { progress(processed: number, total: number): Promise<void>; signal: AbortSignal },
  ): Promise<RunResult & { jobId: string }> {
    const payload = job.payload as ApplyJobPayload;
    const identity: Identity = { ...payload.identity };
    const domain = this.domain(payload.domain);
    const plan = await this.deps.store.get(payload.planId, identity.tenantId);
    if (!plan) throw new PlanNotFoundError(payload.planId);
    if (helpers.signal.aborted) throw new JobInterruptedError();
    await helpers.progress(0, changedEntities(plan.operationsFull)).catch(() => undefined);
    try {
      const result = await this.run(domain, plan, identity, { jobId: job.jobId, progress: helpers.progress, signal: helpers.signal });
      if (result.outcome !== 'success') {
        await this.deps.store.release(plan.planId);
        if (helpers.signal.aborted) throw new JobInterruptedError();
      }
      return { ...result, jobId: job.jobId };
    } catch (err) {
      if (err instanceof LockContentionError || err instanceof JobInterruptedError) throw err;
      if (err instanceof PlanAlreadyAppliedError) {
        return { planId: plan.planId, outcome: 'success', summary: plan.summary, durationMs: 0, jobId: job.jobId };
      }
      await this.deps.store.release(plan.planId);
      const error =
        err instanceof AppError ? { code: err.code, message: err.message } : { code: 'DATA_OPERATION_FAILED', message: 'The apply failed' };
      this.deps.logger.warn({ err, planId: plan.planId }, 'background data operation refused or failed');
      return {
        planId: plan.planId,
        outcome: 'failure',
        summary: { ...emptySummary(), failed: changedEntities(plan.operationsFull) },
        durationMs: 0,
        error,
        jobId: job.jobId,
      };
    }
  }

  /** Lock -> (re-check) -> Apply -> Audit -> Verify -> Release. */
  private run(domain: DataDomainDefinition, plan: StoredPlanRecord, identity: Identity, extras: RunExtras): Promise<RunResult> {
    return withBulkHeapGrowth(() => this.runNow(domain, plan, identity, extras));
  }

  private async runNow(domain: DataDomainDefinition, plan: StoredPlanRecord, identity: Identity, extras: RunExtras): Promise<RunResult> {
    const started = Date.now();
    const ctx = this.context(identity, domain.id);
    const lock = await holdLock(this.deps, domain.id, plan.tenantId, ctx.logger, started);
    const progress = new ProgressReporter(changedEntities(plan.operationsFull), ctx.logger, extras.progress);
    const run: RunInput = { deps: this.deps, domain, plan, ctx, progress, signal: extras.signal };
    try {
      await checkStillCurrent(run);
      const step = await applyOperations(run);
      return await finishRun(run, step, identity, started, extras.jobId);
    } finally {
      progress.stop();
      // Release: always.
      await lock.release();
    }
  }

  async jobs(domainId: string, identity: Identity, jobId?: string): Promise<DataJobView[]> {
    this.domain(domainId);
    const mine = (job: JobView) =>
      job.type === DATA_OPS_APPLY_JOB && job.tenantId === identity.tenantId && (job.payload as ApplyJobPayload | null)?.domain === domainId;
    if (jobId !== undefined) {
      const job = await this.deps.jobs.get(jobId).catch(() => null);
      if (!job || !mine(job)) throw new DataJobNotFoundError(jobId);
      return [jobView(job)];
    }
    const jobs = await this.deps.jobs.list({ type: DATA_OPS_APPLY_JOB, tenantId: identity.tenantId, limit: 500 });
    return jobs.filter(mine).slice(0, 100).map(jobView);
  }

  async history(domainId: string, identity: Identity, jobId?: string): Promise<DataHistoryItem[]> {
    const domain = this.domain(domainId);
    const fromJob = async (view: DataJobView): Promise<DataHistoryItem> => {
      const job = await this.deps.jobs.get(view.jobId).catch(() => null);
      const planId = (job?.payload as ApplyJobPayload | null)?.planId ?? null;
      const plan = planId ? await this.deps.store.get(planId, identity.tenantId).catch(() => null) : null;
      return { ...view, planId, mode: plan?.mode ?? null, inline: false };
    };
    if (jobId !== undefined) return Promise.all((await this.jobs(domainId, identity, jobId)).map(fromJob));
    const jobs = await Promise.all((await this.jobs(domainId, identity)).map(fromJob));
    const queuedPlans = new Set(jobs.map((j) => j.planId).filter(Boolean));
    // Inline applies have no job: the audit entry the apply wrote (after it ran) stands for them. A
    // background apply writes one too; its job is listed already.
    const { items } = await this.deps.audit.list({ tenantId: identity.tenantId, action: `${domain.id}.apply`, limit: 100 });
    const inline: DataHistoryItem[] = items
      .filter((e) => e.operation === 'apply' && !(e.planId && queuedPlans.has(e.planId)))
      .map((e) => {
        const done = e.summary.created + e.summary.updated + e.summary.deleted;
        return {
          jobId: null,
          planId: e.planId,
          mode: (e.mode as SafetyMode | null) ?? null,
          inline: true,
          domain: domainId,
          status: 'completed',
          progress: { processed: done, total: done + e.summary.failed },
          outcome: e.outcome as Outcome,
          summary: e.summary,
          createdAt: new Date(Date.parse(e.timestamp) - e.durationMs).toISOString(),
          completedAt: e.timestamp,
        };
      });
    return [...jobs, ...inline].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, 100);
  }

  async verify(domainId: string, planId: string, identity: Identity): Promise<VerifyResult> {
    const domain = this.domain(domainId);
    const plan = await this.load(domainId, planId, identity);
    return domain.verify(viewlessPlan(plan), this.context(identity, domainId));
  }
}

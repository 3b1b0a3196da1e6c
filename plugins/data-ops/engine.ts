import { withBulkHeapGrowth } from '../../kernel/heap-growth.js';
import { createHash } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import {
  type AuditLog,
  type DbLock,
  AppError,
  LockedError,
  ValidationError,
  type EventBus,
  type Identity,
  JobInterruptedError,
  type JobQueue,
  type JobView,
  type Logger,
  type Registries,
} from '../../kernel/sdk.js';
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
  PlanStaleError,
} from './errors.js';
import { viewOf, type PlanStore, type StoredPlanRecord } from './plan-store.js';
import {
  DATA_OPERATION_COMPLETED,
  DATA_OPS_APPLY_JOB,
  PLAN_TTL_MS,
  type ApplyAnswer,
  type ApplyOptions,
  type ApplyRequest,
  type DataDomainDefinition,
  type DataHistoryItem,
  type DataJobView,
  type DataOperation,
  type DataOperationCompleted,
  type DataOpsEngine,
  type DomainContext,
  type Outcome,
  type PlanDraft,
  type PlanView,
  type Risk,
  type SafetyMode,
  type StoredPlan,
  type Summary,
  type Undo,
  type VerifyResult,
} from './public.js';

export interface DataOpsOptions {
  /** How long apply waits for the domain+tenant lock before 409 LOCK_CONTENTION. */
  lockWaitMs: number;
  /** The lock's lease (renewed while the apply runs; a dead instance's lock expires after it). */
  lockTtlMs: number;
}

export interface EngineDeps {
  store: PlanStore;
  sequelize: Sequelize;
  registries: Registries;
  lock: DbLock;
  jobs: JobQueue;
  audit: AuditLog;
  events: EventBus;
  logger: Logger;
  options: DataOpsOptions;
}

/** What one run of a plan (inline or in a job) gives. */
export type RunResult = Extract<ApplyAnswer, { status: 200 }>['data'];

/** The job payload of a background apply. */
export interface ApplyJobPayload {
  planId: string;
  domain: string;
  identity: Omit<Identity, 'meta'>;
}

const RISK_ORDER: Risk[] = ['safe', 'warning', 'destructive'];
const DESTRUCTIVE_MODES: SafetyMode[] = ['mirror', 'replace'];
const maxRisk = (...risks: Risk[]): Risk => risks.reduce((a, b) => (RISK_ORDER.indexOf(b) > RISK_ORDER.indexOf(a) ? b : a), 'safe');
const countOf = (op: DataOperation) => (Number.isInteger(op.count) && op.count! >= 0 ? op.count! : 1);

export function emptySummary(): Summary {
  return { created: 0, updated: 0, deleted: 0, skipped: 0, failed: 0 };
}

/** create -> created, update -> updated, delete -> deleted, skip -> skipped, each weighted by the operation's count. */
export function summarise(operations: DataOperation[]): Summary {
  const summary = emptySummary();
  const key = { create: 'created', update: 'updated', delete: 'deleted', skip: 'skipped' } as const;
  for (const op of operations) summary[key[op.action]] += countOf(op);
  return summary;
}

/** Entities a plan changes (skips excluded): compared with the domain's inlineThreshold. */
export function changedEntities(operations: DataOperation[]): number {
  return operations.reduce((n, op) => n + (op.action === 'skip' ? 0 : countOf(op)), 0);
}

/** SHA-256 of the canonical JSON of {domain, mode, operationsFull, targetHash}. */
export function planHashOf(domain: string, mode: SafetyMode, operationsFull: DataOperation[], targetHash: string): string {
  return createHash('sha256').update(stringify({ domain, mode, operationsFull, targetHash })!).digest('hex');
}

const ACTIONS = new Set(['create', 'update', 'delete', 'skip']);

function checkDraft(domainId: string, draft: PlanDraft): void {
  const bad = (what: string) => new Error(`Data domain '${domainId}' returned a plan draft with ${what}`);
  if (!draft || !Array.isArray(draft.operations)) throw bad('no operations array');
  for (const op of draft.operations) {
    if (!op || !ACTIONS.has(op.action) || typeof op.type !== 'string' || typeof op.target !== 'string')
      throw bad(`an invalid operation ${JSON.stringify(op)?.slice(0, 200)}`);
  }
  if (!Array.isArray(draft.warnings) || !Array.isArray(draft.blockedReasons)) throw bad('no warnings or blockedReasons array');
}

const identityForJob = (identity: Identity): ApplyJobPayload['identity'] => ({
  kind: identity.kind,
  userId: identity.userId,
  role: identity.role,
  permissions: [...identity.permissions],
  tenantId: identity.tenantId,
});

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
    const domain = this.deps.registries.dataDomains.get(domainId) as unknown as DataDomainDefinition | undefined;
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
      operations: operationsFull.map((o) => ({ action: o.action, type: o.type, target: o.target, count: o.count })),
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
    const { lock, sequelize, store, options } = this.deps;
    const started = Date.now();
    const ctx = this.context(identity, domain.id);
    const lockName = `data-ops:${domain.id}:${plan.tenantId}`;
    let release: () => Promise<void>;
    try {
      release = await lock.acquire(lockName, { ttlMs: options.lockTtlMs, waitMs: options.lockWaitMs });
    } catch (err) {
      if (err instanceof LockedError) throw new LockContentionError(domain.id, Date.now() - started);
      throw err;
    }
    // Timers made here, outside any transaction: their writes never run inside the apply's write gate.
    const renewal = setInterval(
      () => {
        sequelize
          .query('UPDATE cms_locks SET expires_at = ? WHERE name = ? AND owner = ?', {
            replacements: [Date.now() + options.lockTtlMs, lockName, lock.owner],
            type: QueryTypes.UPDATE,
          })
          .catch((err) => ctx.logger.debug({ err }, 'data-operation lock renewal deferred'));
      },
      Math.max(100, Math.floor(options.lockTtlMs / 3)),
    );
    renewal.unref();
    const total = changedEntities(plan.operationsFull);
    let processed = 0;
    let reported = -1;
    let reporting = false;
    const flush = () => {
      if (!extras.progress || reporting || reported === processed) return;
      const value = processed;
      reporting = true;
      extras
        .progress(value, total)
        .then(
          () => {
            reported = value;
          },
          (err) => ctx.logger.debug({ err }, 'progress not recorded yet'),
        )
        .finally(() => {
          reporting = false;
        });
    };
    const progressTimer = extras.progress ? setInterval(flush, 500) : null;
    progressTimer?.unref();
    try {
      const fresh = await store.get(plan.planId, plan.tenantId);
      if (!fresh || fresh.status === 'applied') throw new PlanAlreadyAppliedError(plan.planId, null);
      if (plan.targetHash) {
        let now: string | null = null;
        try {
          now = String(await domain.snapshot(plan.input, ctx));
        } catch (err) {
          ctx.logger.warn({ err, planId: plan.planId }, 'data-operation snapshot failed under the lock; the staleness check is skipped');
        }
        if (now !== null && now !== plan.targetHash) throw new PlanStaleError(plan.planId);
      }

      // Apply.
      const transactional = domain.transactional !== false;
      const undos: Undo[] = [];
      const operations = plan.operationsFull.filter((op) => op.action !== 'skip');
      // Transactional domains: operations flagged outsideTransaction run first (in plan order), before the
      // transaction opens; the rest inside it. Their undos join the list, so a later failure reverts them.
      const outside = transactional ? operations.filter((op) => op.outsideTransaction === true) : [];
      const inside = transactional ? operations.filter((op) => op.outsideTransaction !== true) : operations;
      let base = 0;
      let domainReport: { summary: Summary; outcome?: 'success' | 'partial' } | undefined;
      const report = (result: { summary: Summary; outcome?: 'success' | 'partial' }) => {
        domainReport = { summary: { ...emptySummary(), ...result.summary }, outcome: result.outcome };
      };
      const applyEach = async (list: DataOperation[], transaction?: Transaction, needsUndo = false) => {
        for (const op of list) {
          if (extras.signal?.aborted) throw new JobInterruptedError();
          const count = countOf(op);
          const undo = await domain.apply(op, {
            ...ctx,
            transaction,
            plan: viewlessPlan(plan),
            signal: extras.signal,
            report,
            // Progress within this operation (a table of `count` rows): processed of its `count`.
            progress: (p: number) => {
              processed = base + Math.max(0, Math.min(count, Math.floor(p)));
            },
          });
          if (typeof undo === 'function') undos.push(undo);
          else if (needsUndo)
            ctx.logger.error(
              { planId: plan.planId, domain: domain.id, type: op.type, target: op.target },
              'an operation applied outside the transaction returned no undo: a later failure cannot revert it',
            );
          base += count;
          processed = base;
        }
      };
      const applyAll = async (transaction?: Transaction) => {
        await applyEach(inside, transaction);
        if (!(await store.markApplied(plan.planId, transaction))) throw new PlanAlreadyAppliedError(plan.planId, null);
      };
      let outcome: Outcome = 'success';
      let error: RunResult['error'];
      try {
        if (outside.length) await applyEach(outside, undefined, true);
        if (transactional) await sequelize.transaction(async (t) => applyAll(t));
        else await applyAll();
      } catch (err) {
        // A resumable domain interrupted by a stopping instance continues later: nothing is undone or audited.
        if (domain.resumable === true && !transactional && err instanceof JobInterruptedError) throw err;
        outcome = 'rollback';
        error =
          err instanceof AppError
            ? { code: err.code, message: err.expose ? err.message : 'An operation failed' }
            : { code: 'DATA_OPERATION_FAILED', message: 'An operation failed; completed operations were undone' };
        ctx.logger.warn({ err, planId: plan.planId, domain: domain.id }, 'data-operation apply failed; undoing completed operations');
        for (const undo of undos.reverse()) {
          try {
            await undo();
          } catch (undoErr) {
            outcome = 'partial';
            ctx.logger.error({ err: undoErr, planId: plan.planId, domain: domain.id }, 'an undo failed: the target is partly changed');
          }
        }
        if (err instanceof PlanAlreadyAppliedError) throw err;
      }
      const applied = outcome === 'success';
      const summary: Summary = applied
        ? { ...(domainReport?.summary ?? plan.summary) }
        : { ...emptySummary(), skipped: plan.summary.skipped, failed: total };
      if (applied) processed = total;
      if (applied && domainReport?.outcome === 'partial') outcome = 'partial';
      flush();
      const durationMs = Math.max(0, Math.round(Date.now() - started));

      // Audit: non-blocking (a failure is logged, never changes the answer).
      try {
        await this.deps.audit.append({
          domain: domain.auditDomain,
          operation: 'apply',
          planId: plan.planId,
          mode: plan.mode,
          actor: { userId: identity.userId, tenantId: identity.tenantId },
          outcome,
          summary,
          durationMs,
          level: applied ? (outcome === 'success' ? (plan.risk === 'destructive' ? 'medium' : 'low') : 'medium') : 'high',
          action: `${domain.id}.apply`,
          message: `${domain.id} plan ${plan.planId} (${plan.mode}) applied: ${outcome}`,
        });
      } catch (err) {
        ctx.logger.error({ err, planId: plan.planId }, 'the audit entry of a data operation could not be written');
      }

      // Verify (after a successful apply).
      let verify: VerifyResult | undefined;
      if (applied) {
        try {
          verify = await domain.verify(viewlessPlan({ ...plan, appliedAt: new Date().toISOString() }), ctx);
          if (!verify.ok)
            ctx.logger.warn({ planId: plan.planId, discrepancies: verify.discrepancies }, 'data-operation verify found discrepancies');
        } catch (err) {
          ctx.logger.error({ err, planId: plan.planId }, 'data-operation verify failed');
          verify = { ok: false, discrepancies: ['verify failed to run'] };
        }
      }

      const event: DataOperationCompleted = {
        domain: domain.id,
        planId: plan.planId,
        jobId: extras.jobId ?? null,
        tenantId: plan.tenantId,
        outcome,
        summary,
        durationMs,
      };
      await this.deps.events
        .publish(DATA_OPERATION_COMPLETED, event)
        .catch((err) => ctx.logger.warn({ err }, 'data-operation completion not broadcast'));
      return { planId: plan.planId, outcome, summary, durationMs, ...(verify ? { verify } : {}), ...(error ? { error } : {}) };
    } finally {
      clearInterval(renewal);
      if (progressTimer) clearInterval(progressTimer);
      // Release: always.
      await release().catch((err) =>
        ctx.logger.error({ err, lock: lockName }, 'data-operation lock not released; it expires with its lease'),
      );
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

/** The StoredPlan a domain sees (without the engine's bookkeeping fields). */
function viewlessPlan(plan: StoredPlanRecord | StoredPlan): StoredPlan {
  const { status: _s, jobId: _j, ...stored } = plan as StoredPlanRecord;
  return stored;
}

function jobView(job: JobView): DataJobView {
  const result = (job.result ?? null) as Partial<RunResult> | null;
  return {
    jobId: job.jobId,
    domain: (job.payload as ApplyJobPayload).domain,
    status: job.status,
    progress: { processed: job.progress?.processed ?? 0, total: job.progress?.total ?? 0 },
    ...(result?.outcome ? { outcome: result.outcome } : job.status === 'failed' ? { outcome: 'failure' as const } : {}),
    ...(result?.summary ? { summary: result.summary } : {}),
    createdAt: job.createdAt,
    ...(job.completedAt ? { completedAt: job.completedAt } : {}),
  };
}

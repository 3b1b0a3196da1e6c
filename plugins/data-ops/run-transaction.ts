/**
 * The run of a plan, part 2: the staleness check under the lock, then apply. Transactional domains run
 * the operations flagged outsideTransaction first (in plan order), then the rest in one transaction;
 * on failure the transaction rolls back and the undos run in reverse (outcome rollback, or partial when
 * an undo fails). The plan is marked applied with the last operation.
 */
import type { Transaction } from 'sequelize';
import { AppError } from '../../kernel/errors.js';
import { JobInterruptedError } from '../../kernel/jobs.js';
import { countOf, viewlessPlan, type EngineDeps, type RunResult } from './engine-parts.js';
import { PlanAlreadyAppliedError, PlanStaleError } from './errors.js';
import type { StoredPlanRecord } from './plan-store.js';
import type { DataDomainDefinition, DataOperation, DomainContext, Outcome, Summary, Undo } from './public.js';
import type { ProgressReporter } from './run-lock.js';
import { emptySummary } from './engine-parts.js';

/** What a domain reported of its actual counts (DomainContext.report). */
export type DomainReport = { summary: Summary; outcome?: 'success' | 'partial' };

/** The end of the apply step: its outcome, the failure's error, and the domain's report. */
export interface ApplyStep {
  outcome: Outcome;
  error?: RunResult['error'];
  domainReport?: DomainReport;
}

export interface RunInput {
  deps: EngineDeps;
  domain: DataDomainDefinition;
  plan: StoredPlanRecord;
  ctx: DomainContext;
  progress: ProgressReporter;
  signal?: AbortSignal;
}

/** Refuses a plan applied meanwhile, or one whose target changed since it was made (a failing snapshot skips the check). */
export async function checkStillCurrent({ deps, domain, plan, ctx }: RunInput): Promise<void> {
  const fresh = await deps.store.get(plan.planId, plan.tenantId);
  if (!fresh || fresh.status === 'applied') throw new PlanAlreadyAppliedError(plan.planId, null);
  if (!plan.targetHash) return;
  let now: string | null = null;
  try {
    now = String(await domain.snapshot(plan.input, ctx));
  } catch (err) {
    ctx.logger.warn({ err, planId: plan.planId }, 'data-operation snapshot failed under the lock; the staleness check is skipped');
  }
  if (now !== null && now !== plan.targetHash) throw new PlanStaleError(plan.planId);
}

/** Applies the operations one by one, collecting undos and advancing the progress. */
class Applier {
  readonly undos: Undo[] = [];
  domainReport: DomainReport | undefined;
  private base = 0;

  constructor(private readonly run: RunInput) {}

  private report = (result: DomainReport) => {
    this.domainReport = { summary: { ...emptySummary(), ...result.summary }, outcome: result.outcome };
  };

  async each(list: DataOperation[], transaction?: Transaction, needsUndo = false): Promise<void> {
    const { domain, plan, ctx, progress, signal } = this.run;
    for (const op of list) {
      if (signal?.aborted) throw new JobInterruptedError();
      const count = countOf(op);
      const undo = await domain.apply(op, {
        ...ctx,
        transaction,
        plan: viewlessPlan(plan),
        signal,
        report: this.report,
        // Progress within this operation (a table of `count` rows): processed of its `count`.
        progress: (p: number) => {
          progress.processed = this.base + Math.max(0, Math.min(count, Math.floor(p)));
        },
      });
      if (typeof undo === 'function') this.undos.push(undo);
      else if (needsUndo)
        ctx.logger.error(
          { planId: plan.planId, domain: domain.id, type: op.type, target: op.target },
          'an operation applied outside the transaction returned no undo: a later failure cannot revert it',
        );
      this.base += count;
      progress.processed = this.base;
    }
  }
}

/** Runs the undos in reverse; `partial` when one fails. */
async function undoAll(run: RunInput, undos: Undo[]): Promise<Outcome> {
  let outcome: Outcome = 'rollback';
  for (const undo of undos.reverse()) {
    try {
      await undo();
    } catch (undoErr) {
      outcome = 'partial';
      run.ctx.logger.error(
        { err: undoErr, planId: run.plan.planId, domain: run.domain.id },
        'an undo failed: the target is partly changed',
      );
    }
  }
  return outcome;
}

/** Apply: every operation of the plan, or none (rolled back and undone). */
export async function applyOperations(run: RunInput): Promise<ApplyStep> {
  const { deps, domain, plan, ctx } = run;
  const transactional = domain.transactional !== false;
  const operations = plan.operationsFull.filter((op) => op.action !== 'skip');
  // Transactional domains: operations flagged outsideTransaction run first (in plan order), before the
  // transaction opens; the rest inside it. Their undos join the list, so a later failure reverts them.
  const outside = transactional ? operations.filter((op) => op.outsideTransaction === true) : [];
  const inside = transactional ? operations.filter((op) => op.outsideTransaction !== true) : operations;
  const applier = new Applier(run);
  const applyAll = async (transaction?: Transaction) => {
    await applier.each(inside, transaction);
    if (!(await deps.store.markApplied(plan.planId, transaction))) throw new PlanAlreadyAppliedError(plan.planId, null);
  };
  try {
    if (outside.length) await applier.each(outside, undefined, true);
    if (transactional) await deps.sequelize.transaction(async (t) => applyAll(t));
    else await applyAll();
    return { outcome: 'success', domainReport: applier.domainReport };
  } catch (err) {
    // A resumable domain interrupted by a stopping instance continues later: nothing is undone or audited.
    if (domain.resumable === true && !transactional && err instanceof JobInterruptedError) throw err;
    const error =
      err instanceof AppError
        ? { code: err.code, message: err.expose ? err.message : 'An operation failed' }
        : { code: 'DATA_OPERATION_FAILED', message: 'An operation failed; completed operations were undone' };
    ctx.logger.warn({ err, planId: plan.planId, domain: domain.id }, 'data-operation apply failed; undoing completed operations');
    const outcome = await undoAll(run, applier.undos);
    if (err instanceof PlanAlreadyAppliedError) throw err;
    return { outcome, error, domainReport: applier.domainReport };
  }
}

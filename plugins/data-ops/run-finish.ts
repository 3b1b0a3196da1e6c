/**
 * The run of a plan, part 3: the summary of the outcome, the audit entry (non-blocking), verify (after a
 * successful apply) and the completion event every instance relays.
 */
import type { Identity } from '../../kernel/sdk.js';
import { emptySummary, viewlessPlan, type RunResult } from './engine-parts.js';
import { DATA_OPERATION_COMPLETED, type DataOperationCompleted, type Outcome, type Summary, type VerifyResult } from './public.js';
import type { ApplyStep, RunInput } from './run-transaction.js';

/** Audit: a failure is logged, never changes the answer. */
async function audit(run: RunInput, identity: Identity, outcome: Outcome, summary: Summary, durationMs: number, applied: boolean) {
  const { deps, domain, plan, ctx } = run;
  try {
    await deps.audit.append({
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
      // Where the apply came from when not the REST API (the command line: `details.via: 'cli'`).
      ...(typeof identity.meta?.via === 'string' ? { details: { via: identity.meta.via } } : {}),
    });
  } catch (err) {
    ctx.logger.error({ err, planId: plan.planId }, 'the audit entry of a data operation could not be written');
  }
}

/** Verify: the domain's check; a verify that throws is `ok: false`. */
async function verify({ domain, plan, ctx }: RunInput): Promise<VerifyResult> {
  try {
    const result = await domain.verify(viewlessPlan({ ...plan, appliedAt: new Date().toISOString() }), ctx);
    if (!result.ok)
      ctx.logger.warn({ planId: plan.planId, discrepancies: result.discrepancies }, 'data-operation verify found discrepancies');
    return result;
  } catch (err) {
    ctx.logger.error({ err, planId: plan.planId }, 'data-operation verify failed');
    return { ok: false, discrepancies: ['verify failed to run'] };
  }
}

/** Summary, audit, verify and event of a run whose apply step ended in `step`; answers the run's result. */
export async function finishRun(run: RunInput, step: ApplyStep, identity: Identity, started: number, jobId?: string): Promise<RunResult> {
  const { deps, domain, plan, ctx, progress } = run;
  let outcome = step.outcome;
  const applied = outcome === 'success';
  const summary: Summary = applied
    ? { ...(step.domainReport?.summary ?? plan.summary) }
    : { ...emptySummary(), skipped: plan.summary.skipped, failed: progress.total };
  if (applied) progress.processed = progress.total;
  if (applied && step.domainReport?.outcome === 'partial') outcome = 'partial';
  progress.flush();
  const durationMs = Math.max(0, Math.round(Date.now() - started));
  await audit(run, identity, outcome, summary, durationMs, applied);
  const verified = applied ? await verify(run) : undefined;
  const event: DataOperationCompleted = {
    domain: domain.id,
    planId: plan.planId,
    jobId: jobId ?? null,
    tenantId: plan.tenantId,
    outcome,
    summary,
    durationMs,
  };
  await deps.events
    .publish(DATA_OPERATION_COMPLETED, event)
    .catch((err) => ctx.logger.warn({ err }, 'data-operation completion not broadcast'));
  return {
    planId: plan.planId,
    outcome,
    summary,
    durationMs,
    ...(verified ? { verify: verified } : {}),
    ...(step.error ? { error: step.error } : {}),
  };
}

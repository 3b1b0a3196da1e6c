import { expect } from 'chai';
import { AppError } from '../kernel/errors.js';
import type { Identity } from '../kernel/http/identity.js';
import type { Logger } from '../kernel/logger.js';
import type { DataDomainDefinition, DataOpsEngine, DomainContext, PlanDraft } from '../plugins/data-ops/public.js';
import type { ContractKernel } from './contract-kernel.js';

const ADMIN: Identity = { kind: 'user', userId: 'contract-admin', role: 'admin', permissions: [], tenantId: 'default' };
const MODES = ['add', 'merge', 'mirror', 'replace'];
const AUDIT_DOMAINS = ['config', 'content-package', 'migration', 'importer', 'backup', 'content-sync'];

export interface DataDomainContractOptions {
  /** A kernel with the data-ops plugin and the domains under test. */
  t: Pick<ContractKernel, 'kernel'>;
  /** The domains under test (e.g. the kernel's dataDomains registry); read once the kernel has booted. */
  domains(): DataDomainDefinition[];
  /** Inputs a domain is tried with besides `{}`, by domain id (a valid one lets the no-op apply run). */
  extraInputs?: Record<string, unknown[]>;
}

/**
 * Registers the data-operation domain contract's tests in the calling suite. A domain may refuse an input
 * with a 4xx CmsError from validate(); it must never answer otherwise (5xx, a plain Error). Planning changes
 * nothing (snapshot before == after); a plan with no operations applies as a no-op. Needs mocha and chai
 * (dev dependencies).
 */
export function dataDomainContract(options: DataDomainContractOptions): void {
  const domains = () => options.domains();
  it('every domain declares its modes, default mode, audit domain and threshold consistently', () => {
    const problems: string[] = [];
    for (const d of domains()) {
      if (!d.modes.length || !d.modes.every((m) => MODES.includes(m))) problems.push(`${d.id}: modes ${JSON.stringify(d.modes)}`);
      if (!d.modes.includes(d.defaultMode)) problems.push(`${d.id}: defaultMode '${d.defaultMode}' is not one of its modes`);
      if (!AUDIT_DOMAINS.includes(d.auditDomain)) problems.push(`${d.id}: auditDomain '${d.auditDomain}'`);
      if (!(d.inlineThreshold > 0)) problems.push(`${d.id}: inlineThreshold ${d.inlineThreshold} (a positive number or Infinity)`);
      if (d.transactional !== undefined && typeof d.transactional !== 'boolean') problems.push(`${d.id}: transactional`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('validate refuses bad input with a 4xx error or returns; plan returns a PlanDraft and changes nothing (snapshot equal before and after)', async () => {
    const problems: string[] = [];
    for (const d of domains()) {
      for (const raw of [{}, ...(options.extraInputs?.[d.id] ?? [])]) await checkPlanning(options, d, raw, problems);
    }
    expect(problems).to.deep.equal([]);
  });

  it('through the engine: a plan with no operations applies as a no-op (success, nothing changed)', async () => {
    const problems: string[] = [];
    let tried = 0;
    for (const d of domains()) {
      for (const raw of [{}, ...(options.extraInputs?.[d.id] ?? [])]) if (await checkEmptyApply(options, d, raw, problems)) tried++;
    }
    expect(tried, 'no domain produced an empty plan').to.be.greaterThan(0);
    expect(problems).to.deep.equal([]);
  });
}

function context(options: DataDomainContractOptions): DomainContext {
  return {
    tenantId: ADMIN.tenantId,
    actor: { userId: ADMIN.userId, tenantId: ADMIN.tenantId },
    identity: ADMIN,
    logger: options.t.kernel.container.resolve<Logger>('logger'),
  };
}

/** validate, then plan in every mode: problems go to `problems`. */
async function checkPlanning(options: DataDomainContractOptions, d: DataDomainDefinition, raw: unknown, problems: string[]): Promise<void> {
  const label = `${d.id} ${JSON.stringify(raw)}`;
  let input: unknown;
  try {
    input = await d.validate(raw, context(options));
  } catch (err) {
    if (!(err instanceof AppError) || err.status < 400 || err.status >= 500)
      problems.push(`${label}: validate threw ${String(err)} (not a 4xx CmsError)`);
    return;
  }
  for (const mode of d.modes) {
    const before = await d.snapshot(input, context(options)).catch(() => null);
    let draft: PlanDraft;
    try {
      draft = await d.plan(input, mode, context(options));
    } catch (err) {
      if (!(err instanceof AppError && err.status < 500)) problems.push(`${label} ${mode}: plan threw ${String(err)}`);
      continue;
    }
    const after = await d.snapshot(input, context(options)).catch(() => null);
    if (before !== after) problems.push(`${label} ${mode}: the snapshot changed during plan (${before} -> ${after})`);
    if (typeof before !== 'string' && before !== null) problems.push(`${label}: snapshot is not a string`);
    checkDraft(label, mode, draft, problems);
  }
}

/** A PlanDraft's shape, and its operations against the mode. */
function checkDraft(label: string, mode: string, draft: PlanDraft, problems: string[]): void {
  const where = `${label} ${mode}`;
  if (
    !Array.isArray(draft?.operations) ||
    !Array.isArray(draft.warnings) ||
    !Array.isArray(draft.blockedReasons) ||
    typeof draft.targetHash !== 'string'
  ) {
    problems.push(`${where}: not a PlanDraft: ${JSON.stringify(draft)?.slice(0, 300)}`);
    return;
  }
  for (const op of draft.operations) {
    if (!['create', 'update', 'delete', 'skip'].includes(op.action) || typeof op.type !== 'string' || typeof op.target !== 'string')
      problems.push(`${where}: bad operation ${JSON.stringify(op).slice(0, 200)}`);
    if (op.count !== undefined && !(Number.isInteger(op.count) && op.count >= 0)) problems.push(`${where}: bad count on ${op.target}`);
    if (mode === 'add' && (op.action === 'update' || op.action === 'delete'))
      problems.push(`${label}: mode add plans a ${op.action} of ${op.target}`);
    if (mode === 'merge' && op.action === 'delete') problems.push(`${label}: mode merge plans a delete of ${op.target}`);
  }
  for (const w of draft.warnings) if (typeof w?.message !== 'string') problems.push(`${where}: a warning without message`);
  if (draft.risk !== undefined && !['safe', 'warning', 'destructive'].includes(draft.risk)) problems.push(`${where}: risk ${draft.risk}`);
}

/** Plans through the engine and, when the plan is empty, applies it: true when an apply was tried. */
async function checkEmptyApply(
  options: DataDomainContractOptions,
  d: DataDomainDefinition,
  raw: unknown,
  problems: string[],
): Promise<boolean> {
  const engine = options.t.kernel.container.resolve<DataOpsEngine>('dataOps');
  const label = `${d.id} ${JSON.stringify(raw)}`;
  let input: unknown;
  try {
    input = await d.validate(raw, context(options));
  } catch {
    return false;
  }
  const plan = await engine.plan(d.id, raw, d.defaultMode, ADMIN).catch((err) => err as Error);
  if (plan instanceof Error) {
    if (!(plan instanceof AppError && plan.status < 500)) problems.push(`${label}: engine plan threw ${String(plan)}`);
    return false;
  }
  if (plan.operations.some((op) => op.action !== 'skip') || plan.blockedReasons.length) return false;
  const before = await d.snapshot(input, context(options)).catch(() => null);
  const answer = await engine
    .apply(d.id, { planId: plan.planId, confirmed: true, planHash: plan.planHash }, ADMIN)
    .catch((err) => err as Error);
  if (answer instanceof Error) {
    problems.push(`${label}: apply of an empty plan threw ${String(answer)}`);
    return true;
  }
  if (answer.status !== 200 || answer.data.outcome !== 'success')
    problems.push(`${label}: apply of an empty plan answered ${JSON.stringify(answer)}`);
  const after = await d.snapshot(input, context(options)).catch(() => null);
  if (before !== after) problems.push(`${label}: apply of an empty plan changed the target`);
  return true;
}

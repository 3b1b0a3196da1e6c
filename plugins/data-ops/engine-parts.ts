/**
 * The engine's pure parts: its dependencies and options, a plan's summary, size and hash, the check of a
 * domain's draft, and the views of a stored plan and of a background job.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { Sequelize } from 'sequelize';
import type { AuditLog } from '../../kernel/audit.js';
import type { DbLock } from '../../kernel/db/lock.js';
import type { EventBus } from '../../kernel/events.js';
import type { Identity } from '../../kernel/http/identity.js';
import type { JobQueue, JobView } from '../../kernel/jobs.js';
import type { Logger } from '../../kernel/logger.js';
import type { Registries } from '../../kernel/registries/index.js';
import type { PlanStore, StoredPlanRecord } from './plan-store.js';
import type { ApplyAnswer, DataJobView, DataOperation, PlanDraft, Risk, SafetyMode, StoredPlan, Summary } from './public.js';

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
export const DESTRUCTIVE_MODES: SafetyMode[] = ['mirror', 'replace'];
export const maxRisk = (...risks: Risk[]): Risk => risks.reduce((a, b) => (RISK_ORDER.indexOf(b) > RISK_ORDER.indexOf(a) ? b : a), 'safe');
export const countOf = (op: DataOperation) => (Number.isInteger(op.count) && op.count! >= 0 ? op.count! : 1);

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

export function checkDraft(domainId: string, draft: PlanDraft): void {
  const bad = (what: string) => new Error(`Data domain '${domainId}' returned a plan draft with ${what}`);
  if (!draft || !Array.isArray(draft.operations)) throw bad('no operations array');
  for (const op of draft.operations) {
    if (!op || !ACTIONS.has(op.action) || typeof op.type !== 'string' || typeof op.target !== 'string')
      throw bad(`an invalid operation ${JSON.stringify(op)?.slice(0, 200)}`);
  }
  if (!Array.isArray(draft.warnings) || !Array.isArray(draft.blockedReasons)) throw bad('no warnings or blockedReasons array');
}

export const identityForJob = (identity: Identity): ApplyJobPayload['identity'] => ({
  kind: identity.kind,
  userId: identity.userId,
  role: identity.role,
  permissions: [...identity.permissions],
  tenantId: identity.tenantId,
});

/** The StoredPlan a domain sees (without the engine's bookkeeping fields). */
export function viewlessPlan(plan: StoredPlanRecord | StoredPlan): StoredPlan {
  const { status: _s, jobId: _j, ...stored } = plan as StoredPlanRecord;
  return stored;
}

export function jobView(job: JobView): DataJobView {
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

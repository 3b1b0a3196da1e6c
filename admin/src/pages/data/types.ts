// Wire shapes of the data-operation routes (README "Data operations"; API-DECISIONS "Data operations"),
// derived from the generated route types where the routes declare them.
import type { RouteResponse } from '../../lib/remote';

/** A plan as every `plan` route (and `backups/restore-plan`) answers it. */
export type Plan = RouteResponse<'POST /api/backups/restore-plan'>;
export type Risk = Plan['risk'];
export type PlanSummary = Plan['summary'];
export type PlanOperation = Plan['operations'][number];
/** A content import's or sync's conflict: target = the planning instance's version, source = the package's (the sender's). */
export type ConflictDetail = NonNullable<Plan['warnings'][number]['conflict']>;

type ApplyAnswer = RouteResponse<'POST /api/config/apply'>;
/** An inline apply's answer (200); a failed apply is still 200 with outcome rollback or partial. */
export type ApplyResult = Exclude<ApplyAnswer, { status: 'queued' }>;
/** A background apply (202). */
export type QueuedApply = Extract<ApplyAnswer, { status: 'queued' }>;

/**
 * A background job as the jobs routes answer it. The routes declare `status` as any string; the
 * data-ops engine sends one of these four, which the pages rely on.
 */
export interface DataJob {
  jobId: string;
  domain: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  progress: { processed: number; total: number };
  outcome?: string;
  summary?: PlanSummary;
  error?: string | { code?: string; message?: string };
  backupId?: string;
  createdAt: string;
  completedAt?: string;
}

/** One apply of GET /api/config/history: a background job, or an inline apply (jobId null). */
export interface HistoryItem extends Omit<DataJob, 'jobId'> {
  jobId: string | null;
  planId: string | null;
  mode: string | null;
  inline: boolean;
}

/** One `event: completed` of GET /api/data-ops/events. */
export interface CompletedEvent {
  domain: string;
  planId: string;
  jobId: string | null;
  tenantId: string;
  outcome: string;
  summary: PlanSummary;
  durationMs: number;
}

export const isQueued = (answer: ApplyResult | QueuedApply): answer is QueuedApply => 'jobId' in answer && !('outcome' in answer);

// Wire shapes of the data-operation routes (README "Data operations"; API-DECISIONS "Data operations").

export type Risk = 'safe' | 'warning' | 'destructive';

export interface PlanSummary {
  created: number;
  updated: number;
  deleted: number;
  skipped: number;
  failed: number;
}

export interface PlanOperation {
  action: string;
  type: string;
  target: string;
  count: number;
}

/** A plan as every `plan` route (and `backups/restore-plan`) answers it. */
export interface Plan {
  planId: string;
  planHash: string;
  domain: string;
  mode: string;
  risk: Risk;
  requiresConfirmation: boolean;
  summary: PlanSummary;
  operations: PlanOperation[];
  warnings: Array<{ message: string; item?: string; conflict?: ConflictDetail }>;
  blockedReasons: string[];
  expiresAt: string;
}

/** A content import's or sync's conflict: target = the planning instance's version, source = the package's (the sender's). */
export interface ConflictDetail {
  collection: string;
  syncId: string;
  target: { title: string; updatedAt: string | null };
  source: { title: string; updatedAt: string | null };
  changedFields: string[];
  resolution: 'source' | 'target';
}

/** An inline apply's answer (200); a failed apply is still 200 with outcome rollback or partial. */
export interface ApplyResult {
  planId: string;
  outcome: 'success' | 'partial' | 'failure' | 'rollback';
  summary: PlanSummary;
  durationMs: number;
  verify?: { ok: boolean; discrepancies: string[] };
  error?: { code: string; message: string };
}

/** A background apply (202). */
export interface QueuedApply {
  jobId: string;
  status: 'queued';
}

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

/**
 * The data-operation engine's public surface (plugin `data-ops`): the contract a domain implements
 * (DataDomainDefinition, registered into the kernel's `dataDomains` registry by the domain's plugin),
 * the engine's container key `dataOps` that domain routes call, and the wire shapes fixed in
 * API-DECISIONS.md ("Data operations"). The engine owns the lifecycle
 * Validate -> Snapshot -> Plan -> Confirm -> Lock -> Apply -> Audit -> Verify -> Release;
 * a domain only says what its data is and how one operation is applied and undone.
 */
import type { Logger, Identity } from '../../kernel/sdk.js';
import type { Transaction } from 'sequelize';
import type { CompletionStreams } from './completion-stream.js';
import type { PlanStore } from './plan-store.js';

/** Zod schemas of the wire shapes above, for domain routes' request bodies and OpenAPI answers. */
export {
  applyAnswerSchema,
  applyBodySchema,
  conflictDetailSchema,
  historyAnswerSchema,
  jobsAnswerSchema,
  planViewSchema,
  summarySchema,
} from './wire-schemas.js';

/** The kit a domain builds on: input validation, the mode matrix, the routes (see each module). */
export { parseInput, zodIssueDetails } from './validate-input.js';
export {
  DEFAULT_DIFF_MESSAGES,
  planFromDiff,
  sortByTypeAndTarget,
  type DataDiff,
  type DiffItem,
  type DiffMessages,
  type PlanFromDiff,
  type PlanFromDiffOptions,
} from './plan-from-diff.js';
export {
  answerApply,
  applyRoute,
  confirmedApplyBodySchema,
  dataOpRoutes,
  historyRoute,
  jobIdQuerySchema,
  jobsRoute,
  planRoute,
  verifyRoute,
  type ApplyRouteOptions,
  type DataOpRoutesOptions,
  type DataRouteCommon,
  type DataRouteText,
  type ListRouteOptions,
  type PlanRouteOptions,
  type VerifyRouteOptions,
} from './route-kit.js';

export type SafetyMode = 'add' | 'merge' | 'mirror' | 'replace';
export type Risk = 'safe' | 'warning' | 'destructive';
export type Outcome = 'success' | 'partial' | 'failure' | 'rollback';
/** The spec's audit `domain` values. */
export type AuditDomain = 'config' | 'content-package' | 'migration' | 'importer' | 'backup' | 'content-sync';

export interface Summary {
  created: number;
  updated: number;
  deleted: number;
  skipped: number;
  failed: number;
}

/** Per aspect of a resource (a role's `permissions`, its `rules`), the items an operation adds and removes. */
export type OperationChanges = Record<string, { added: unknown[]; removed: unknown[] }>;

/** One step of a plan, in dependency order. `payload` is what apply needs (stored with the plan: never a secret). */
export interface DataOperation<P = unknown> {
  action: 'create' | 'update' | 'delete' | 'skip';
  /** Entity type: 'role', 'setting', 'collection', 'entry', 'migration', 'table'... */
  type: string;
  /** The entity's natural name or id. */
  target: string;
  /** Entities this operation touches (default 1); counts toward the inline threshold and the summary. */
  count?: number;
  payload?: P;
  /**
   * What the operation changes, for the reader of the plan (shown in the plan's `operations`): per aspect, the
   * items it adds and removes (configuration promotion: a role's permissions and rules).
   */
  changes?: OperationChanges;
  /**
   * Transactional domains only: this operation cannot run inside the apply transaction (DDL through a
   * migration ledger, which commits implicitly on MariaDB and would be refused by the SQLite write gate).
   * The engine runs such operations first, in plan order, before it opens the transaction (no
   * `ctx.transaction`), and each must return an Undo: if one of them or anything in the transaction
   * fails, the transaction rolls back and their undos run in reverse (outcome `rollback`, or `partial`
   * if an undo fails). Ignored by non-transactional domains (everything already runs outside).
   */
  outsideTransaction?: true;
}

/** What a domain's plan() returns; the engine adds planId, planHash, risk, expiry and stores it. */
export interface PlanDraft {
  operations: DataOperation[];
  warnings: Array<{ message: string; item?: string }>;
  blockedReasons: string[];
  /** Hash of the target's state the plan was made against (from snapshot()); re-checked under the lock. */
  targetHash: string;
  /** Optional risk floor (e.g. a migration that rewrites values is 'warning'); mirror/replace with deletes are always destructive. */
  risk?: Risk;
}

/** What every domain call receives. */
export interface DomainContext {
  tenantId: string;
  actor: { userId: string | null; tenantId: string };
  identity: Identity;
  logger: Logger;
  /** Apply (and its undos) only: the transaction the engine opened when the domain is `transactional`. */
  transaction?: Transaction;
  /** Apply only: set when the instance is stopping or the job was interrupted. */
  signal?: AbortSignal;
  /** Apply only: progress for the jobs route and the completion stream. */
  progress?(processed: number, total: number): void;
  /**
   * Apply only: the domain's actual counts when they differ from the plan's (records skipped or failed one
   * by one while the apply as a whole succeeded). The last report replaces the plan's summary in the
   * answer, the audit entry, the job result and the completion event; outcome `partial` when some
   * records failed. Ignored when the apply fails (the engine's rollback summary stands).
   */
  report?(result: { summary: Summary; outcome?: 'success' | 'partial' }): void;
}

/** Reverts one applied operation (files, rows outside the transaction); run in reverse order on failure. */
export type Undo = () => Promise<void> | void;

export interface VerifyResult {
  ok: boolean;
  discrepancies: string[];
}

/** The contract a domain implements; its plugin adds it to `registries.dataDomains`. */
export interface DataDomainDefinition<I = unknown> {
  id: string;
  /** The spec's audit domain name. */
  auditDomain: AuditDomain;
  modes: SafetyMode[];
  defaultMode: SafetyMode;
  /** Entity count at or above which apply runs as a background job; Infinity = always inline. */
  inlineThreshold: number;
  /**
   * true (default): the engine runs every apply() of one plan inside one database transaction (under
   * the SQLite write gate), so a crash leaves the data as before. A domain that streams files sets
   * false and must return an Undo from every apply() that changes anything.
   */
  transactional?: boolean;
  /**
   * Non-transactional domains only: the domain keeps its own progress and an interrupted apply continues
   * where it stopped (it never writes an entity twice). A JobInterruptedError thrown by apply (the
   * instance is stopping) then runs no undo, writes no audit entry and sends no completion event: the
   * error goes to the caller (a background job is queued again and resumes; an inline apply's plan stays
   * unapplied). The domain's snapshot must then answer the plan's targetHash for a plan it has begun
   * (its own writes changed the target), or a resumed job would be refused as stale.
   */
  resumable?: boolean;
  /** Throws a 4xx CmsError (ValidationError...) on bad input; returns the normalised input. */
  validate(input: unknown, ctx: DomainContext): Promise<I>;
  /** A deterministic hash of the target state this input touches (best effort: the engine warns on failure). */
  snapshot(input: I, ctx: DomainContext): Promise<string>;
  /** No mutation. Operations in dependency order. */
  plan(input: I, mode: SafetyMode, ctx: DomainContext): Promise<PlanDraft>;
  /** Applies one operation of a stored plan; may return an Undo. */
  apply(operation: DataOperation, ctx: DomainContext & { plan: StoredPlan }): Promise<Undo | void>;
  /** Counts, checksums, referential integrity after apply. */
  verify(plan: StoredPlan, ctx: DomainContext): Promise<VerifyResult>;
}

/** The plan object of the wire format (API-DECISIONS.md), as every plan route answers it. */
export interface PlanView {
  planId: string;
  planHash: string;
  domain: string;
  mode: SafetyMode;
  risk: Risk;
  requiresConfirmation: boolean;
  summary: Summary;
  operations: Array<{ action: string; type: string; target: string; count: number; changes?: OperationChanges }>;
  warnings: Array<{ message: string; item?: string }>;
  blockedReasons: string[];
  expiresAt: string;
}

/** A plan as stored (table cms_data_plans): the view plus what apply needs. */
export interface StoredPlan extends PlanView {
  tenantId: string;
  actor: { userId: string | null; tenantId: string };
  input: unknown;
  targetHash: string;
  operationsFull: DataOperation[];
  createdAt: string;
  appliedAt: string | null;
}

export interface ApplyRequest {
  planId: string;
  confirmed?: boolean;
  planHash?: string;
}
/** Server-side options of apply (never from a request body). */
export interface ApplyOptions {
  /** Runs inline whatever the plan's size (a caller that is itself the progress channel, e.g. a server-sent event stream). */
  inline?: boolean;
}
export type ApplyAnswer =
  | {
      status: 200;
      data: {
        planId: string;
        outcome: Outcome;
        summary: Summary;
        durationMs: number;
        verify?: VerifyResult;
        /** Outcome rollback / partial / failure: why (the failing operation's error code and message). */
        error?: { code: string; message: string };
      };
    }
  | { status: 202; data: { jobId: string; status: 'queued' } };

export interface DataJobView {
  jobId: string;
  domain: string;
  status: string;
  progress: { processed: number; total: number };
  outcome?: Outcome;
  summary?: Summary;
  createdAt: string;
  completedAt?: string;
}

/**
 * One apply of a domain's history: a background job (jobId), or an apply done inline (jobId null, status
 * completed, read from the audit trail's entry of that apply).
 */
export interface DataHistoryItem extends Omit<DataJobView, 'jobId'> {
  jobId: string | null;
  planId: string | null;
  mode: SafetyMode | null;
  inline: boolean;
}

/** How long a stored plan may be applied: 30 minutes after it was made (then 410 PLAN_EXPIRED). */
export const PLAN_TTL_MS = 30 * 60 * 1000;
/** The job type of a background apply (kernel job queue). */
export const DATA_OPS_APPLY_JOB = 'data-ops.apply';
/** The completion stream (server-sent events: `event: completed`, data = DataOperationCompleted). */
export const DATA_OPS_EVENTS_PATH = '/api/data-ops/events';

/** Published on the event bus (every instance) when an apply finishes; the SSE stream and GraphQL subscription relay it. */
export const DATA_OPERATION_COMPLETED = 'data-ops:completed';
export interface DataOperationCompleted {
  domain: string;
  planId: string;
  jobId: string | null;
  tenantId: string;
  outcome: Outcome;
  summary: Summary;
  durationMs: number;
}

/** The engine (container key `dataOps`). Domain routes call it; it throws the documented CmsErrors. */
export interface DataOpsEngine {
  /** Validate -> Snapshot -> Plan; stores the plan; changes nothing else. */
  plan(domainId: string, input: unknown, mode: SafetyMode | undefined, identity: Identity): Promise<PlanView>;
  /** Confirm -> Lock -> Apply -> Audit -> Verify -> Release, inline (200) or as a job (202). */
  apply(domainId: string, request: ApplyRequest, identity: Identity, options?: ApplyOptions): Promise<ApplyAnswer>;
  /** The domain's jobs, newest first; one job with `jobId`. */
  jobs(domainId: string, identity: Identity, jobId?: string): Promise<DataJobView[]>;
  /**
   * The domain's applies, newest first (at most 100): background jobs and inline applies (these from the
   * audit trail); one job with `jobId`.
   */
  history(domainId: string, identity: Identity, jobId?: string): Promise<DataHistoryItem[]>;
  /** Runs the domain's verify against a stored plan. */
  verify(domainId: string, planId: string, identity: Identity): Promise<VerifyResult>;
  /** A stored plan of this tenant (PLAN_NOT_FOUND otherwise). */
  getPlan(planId: string, identity: Identity): Promise<StoredPlan>;
}

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    dataOps: DataOpsEngine;
    dataOpsPlans: PlanStore;
    dataOpsStreams: CompletionStreams;
  }
}

declare module '../../kernel/sdk.js' {
  interface ExtensionPoints {
    dataDomains: DataDomainDefinition;
  }
}

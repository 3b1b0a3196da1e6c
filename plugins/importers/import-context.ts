import type { LocaleMapping } from './plan-locales.js';
import { type Identity, type JobQueue, type Logger, type WorkerPool, ServiceUnavailableError } from '../../kernel/sdk.js';
import type { DataOpsEngine, Summary } from '../data-ops/public.js';
import type { FormatsView } from './analyse.js';
import type { ImporterOptions } from './options.js';
import type { EntityMapping, ImportPlan, StatusPolicy } from './planner.js';
import type { ContentClientFactory } from '../content/public.js';
import type { MediaClientFactory } from '../media/public.js';
import type { RunOutcome } from './runner.js';
import type { ImportStore, JobRow } from './store.js';

/** The kernel job type of a background import run. */
export const JOB_TYPE = 'importers.run';
/** The importers' data domain (the engine's domain id and the audit entries' `domain`). */
export const IMPORTER_DOMAIN = 'importer';

/** What the importer services share (one object: a test may replace `contentClient` on it). */
export interface ImporterDeps {
  store: ImportStore;
  pool: WorkerPool;
  formats: FormatsView;
  jobs: JobQueue;
  logger: Logger;
  options: ImporterOptions;
  dataPath: string;
  /** Aborted when the instance stops (kernelState.stopping). */
  stopping?: AbortSignal;
  contentClient: () => ContentClientFactory;
  mediaClient: () => MediaClientFactory;
  /** The installation's content locales (the content plugin's locales service), for the plan's languages. */
  localesList: () => ReadonlyArray<{ code: string; isDefault: boolean }>;
  /** The data-operation engine (plugin data-ops). */
  dataOps: () => DataOpsEngine | undefined;
  /** User names for past runs (plugin auth's users service, when there). */
  userName?: (userId: string) => Promise<string | null>;
}

/** The normalised input of an importer plan (stored with the engine's plan). */
export interface ImportInput {
  format: string;
  uploadId: string;
  mappings?: Record<string, EntityMapping>;
  /** The source languages' mapping onto the installation's locales (plan-locales.ts). */
  locales?: Record<string, LocaleMapping>;
  scaffold: boolean;
  /** keep the source's statuses or import everything as drafts (default per target: see planner.ts). */
  statuses?: StatusPolicy;
  /** The import job this plan's run gets (assigned when it is planned: one run per plan). */
  jobId: string;
}

/** A past run in GET /api/importers/runs. */
export interface RunSummary {
  jobId: string;
  format: string;
  source: string;
  filename: string | null;
  status: JobRow['status'];
  startedAt: string;
  completedAt: string | null;
  by: { userId: string | null; name: string | null };
  counts: { imported: number; updated: number; skipped: number; failed: number };
  targets: Array<{ sourceType: string; targetCollection: string; target: 'new' | 'existing'; statuses: StatusPolicy; count: number }>;
}

/** What a stream (POST /api/migration/import) follows an inline run with. */
export interface RunHooks {
  progress?: (processed: number, total: number) => Promise<void> | void;
  shouldStop?: () => boolean;
}

export interface StoredPlan extends ImportPlan {
  identity: Identity;
  /** The uploaded file's name (past runs show it after the upload record is swept). */
  filename?: string;
  /** The engine plan's target hash (a resumed run answers it as its snapshot). */
  targetHash?: string;
  /** The import job id assigned when planned. */
  jobId?: string;
}

/** The plan's own first operation: the run itself (count 0); it carries the importer's plan. */
export interface RunPayload {
  plan: Omit<ImportPlan, 'planId'>;
}

/** The data-operation engine, or 503 when plugin data-ops is not there. */
export function engineOf(deps: ImporterDeps): DataOpsEngine {
  const engine = deps.dataOps();
  if (!engine) throw new ServiceUnavailableError('The data-operation engine (plugin data-ops) is not available');
  return engine;
}

/** The label of a format (its id when the format is not registered). */
export function formatLabel(deps: ImporterDeps, format: string): string {
  return deps.formats.list().find((f) => f.format === format)?.label ?? format;
}

/** Engine summary of a run's per-entity results: created = imported - updated. */
export function summaryOf(results: RunOutcome['results']): Summary {
  const summary: Summary = { created: 0, updated: 0, deleted: 0, skipped: 0, failed: 0 };
  for (const r of Object.values(results)) {
    summary.created += Math.max(0, r.imported - r.updated);
    summary.updated += r.updated;
    summary.skipped += r.skipped;
    summary.failed += r.failed;
  }
  return summary;
}

/** The short name new collections are suffixed with: the first word of the format's label (`Strapi export` -> `strapi`). */
export function sourceTagOf(label: string): string {
  const word = /[A-Za-z][A-Za-z0-9]*/.exec(label)?.[0]?.toLowerCase() ?? '';
  return word.slice(0, 16) || 'import';
}

/** The parts of an identity a background run acts as (no session or token material). */
export const identitySnapshot = (i: Identity): Identity => ({
  kind: i.kind,
  userId: i.userId,
  role: i.role,
  permissions: [...i.permissions],
  tenantId: i.tenantId,
});

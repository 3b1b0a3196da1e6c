import { join } from 'node:path';
import type { Context } from 'koa';
import type { Identity } from '../../kernel/sdk.js';
import type { DataOperation, DomainContext, StoredPlan as DataPlan } from '../data-ops/public.js';
import { ImportExecution } from './execution.js';
import type { ImporterDeps, ImportInput, RunHooks } from './import-context.js';
import { ImportJobs } from './jobs.js';
import type { EntityMapping, ImportPlan, SafetyMode, StatusPolicy } from './planner.js';
import { ImportPlanning, type PreviewBody } from './planning.js';
import { ImportJobRunner, type ExecuteHooks } from './run-job.js';
import { ImportUploads, type ReceivedUpload } from './uploads.js';
import type { ImporterOptions } from './options.js';
import type { Analysis } from './analyse.js';

export { IMPORTER_DOMAIN, JOB_TYPE, sourceTagOf } from './import-context.js';
export type { ImporterDeps, ImportInput, RunHooks, RunSummary } from './import-context.js';
export type { ReceivedUpload, ValidateView } from './uploads.js';

/**
 * The importer flow (container key `importers`), a facade over its four parts: uploads and analysis
 * (uploads.ts), planning (planning.ts), execution (execution.ts, run-job.ts), jobs and retention (jobs.ts).
 */
export class ImportersService {
  readonly root: string;
  readonly uploads: ImportUploads;
  readonly planning: ImportPlanning;
  readonly execution: ImportExecution;
  readonly jobs: ImportJobs;
  private readonly runner: ImportJobRunner;

  constructor(readonly deps: ImporterDeps) {
    this.root = join(deps.dataPath, 'imports');
    this.uploads = new ImportUploads(deps, this.root);
    this.planning = new ImportPlanning(deps, this.uploads);
    this.runner = new ImportJobRunner(deps);
    this.execution = new ImportExecution(deps, this.runner);
    this.jobs = new ImportJobs(deps, { uploads: this.uploads, planning: this.planning, execution: this.execution });
  }

  get options(): ImporterOptions {
    return this.deps.options;
  }

  sources = () => this.uploads.sources();
  receive = (ctx: Context) => this.uploads.receive(ctx);
  analyse = (upload: ReceivedUpload, hint: string | undefined, onStep?: (step: 'detecting' | 'parsing') => void): Promise<Analysis> =>
    this.uploads.analyse(upload, hint, onStep);
  record = (identity: Identity, upload: ReceivedUpload, analysis: Analysis) => this.uploads.record(identity, upload, analysis);
  validate = (ctx: Context, identity: Identity) => this.uploads.validate(ctx, identity);

  validateInput = (
    identity: Identity,
    body: { format: string; uploadId?: string; mappings?: Record<string, EntityMapping>; scaffold?: boolean; statuses?: StatusPolicy },
  ) => this.planning.validateInput(identity, body);
  snapshotOf = (input: ImportInput, identity: Identity) => this.planning.snapshotOf(input, identity);
  draftFor = (input: ImportInput, mode: SafetyMode, identity: Identity) => this.planning.draftFor(input, mode, identity);
  preview = (identity: Identity, body: PreviewBody) => this.planning.preview(identity, body);
  planView = (plan: ImportPlan) => this.planning.planView(plan);

  run = (identity: Identity, body: { planId: string; confirmed: boolean }) => this.execution.run(identity, body);
  applyClaimed = (identity: Identity, planId: string, jobId: string, options: { inline?: boolean; hooks?: RunHooks } = {}) =>
    this.execution.applyClaimed(identity, planId, jobId, options);
  applyOperation = (op: DataOperation, ctx: DomainContext & { plan: DataPlan }) => this.execution.applyOperation(op, ctx);
  verifyRun = (plan: DataPlan) => this.execution.verifyRun(plan);
  execute = (jobId: string, hooks: ExecuteHooks = {}) => this.runner.execute(jobId, hooks);

  jobsList = (identity: Identity, jobId?: string) => this.jobs.jobsList(identity, jobId);
  job = (identity: Identity, jobId: string) => this.jobs.job(identity, jobId);
  runs = (identity: Identity, limit?: number) => this.jobs.runs(identity, limit);
  runView = (identity: Identity, jobId: string, page: { offset: number; limit: number }) => this.jobs.runView(identity, jobId, page);
  planAndClaim = (identity: Identity, uploadId: string, format: string, options: { collection?: string; scaffold: boolean }) =>
    this.jobs.planAndClaim(identity, uploadId, format, options);
  sweep = (now?: number) => this.jobs.sweep(now);
}

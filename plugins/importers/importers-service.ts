import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import { Op } from 'sequelize';
import type { Identity } from '../../kernel/sdk.js';
import type { DataOperation, DomainContext, StoredPlan as DataPlan } from '../data-ops/public.js';
import type { ImportExecution } from './execution.js';
import type { ImporterDeps, ImportInput, RunHooks } from './import-context.js';
import type { ImportJobs } from './jobs.js';
import type { EntityMapping, ImportPlan, SafetyMode, StatusPolicy } from './planner.js';
import type { ImportPlanning, PreviewBody } from './planning.js';
import type { ImportJobRunner, ExecuteHooks } from './run-job.js';
import type { ImportUploads, ReceivedUpload } from './uploads.js';
import type { ImporterOptions } from './options.js';
import type { Analysis } from './analyse.js';

export { IMPORTER_DOMAIN, JOB_TYPE, sourceTagOf } from './import-context.js';
export type { ImporterDeps, ImportInput, RunHooks, RunSummary } from './import-context.js';
export type { ReceivedUpload, ValidateView } from './uploads.js';

/** The four parts of the flow, built on first use (their modules, the parsers' and the run's, load then, not at boot). */
interface Parts {
  uploads: ImportUploads;
  planning: ImportPlanning;
  execution: ImportExecution;
  jobs: ImportJobs;
  runner: ImportJobRunner;
}

let partModules:
  | Promise<
      [
        typeof import('./uploads.js'),
        typeof import('./planning.js'),
        typeof import('./run-job.js'),
        typeof import('./execution.js'),
        typeof import('./jobs.js'),
      ]
    >
  | undefined;
const loadPartModules = () =>
  (partModules ??= Promise.all([
    import('./uploads.js'),
    import('./planning.js'),
    import('./run-job.js'),
    import('./execution.js'),
    import('./jobs.js'),
  ]));

/**
 * The importer flow (container key `importers`), a facade over its four parts: uploads and analysis
 * (uploads.ts), planning (planning.ts), execution (execution.ts, run-job.ts), jobs (jobs.ts); the
 * retention sweep is here (it runs at boot, before any part is needed).
 */
export class ImportersService {
  readonly root: string;
  private parts: Promise<Parts> | undefined;

  constructor(readonly deps: ImporterDeps) {
    this.root = join(deps.dataPath, 'imports');
  }

  get options(): ImporterOptions {
    return this.deps.options;
  }

  /** The parts, built once per service on first use. */
  private load(): Promise<Parts> {
    return (this.parts ??= loadPartModules().then(([u, p, r, e, j]) => {
      const uploads = new u.ImportUploads(this.deps, this.root);
      const planning = new p.ImportPlanning(this.deps, uploads);
      const runner = new r.ImportJobRunner(this.deps);
      const execution = new e.ImportExecution(this.deps, runner);
      const jobs = new j.ImportJobs(this.deps, { uploads, planning, execution });
      return { uploads, planning, execution, jobs, runner };
    }));
  }

  sources = async () => (await this.load()).uploads.sources();
  receive = async (ctx: Context) => (await this.load()).uploads.receive(ctx);
  analyse = async (upload: ReceivedUpload, hint: string | undefined, onStep?: (step: 'detecting' | 'parsing') => void): Promise<Analysis> =>
    (await this.load()).uploads.analyse(upload, hint, onStep);
  record = async (identity: Identity, upload: ReceivedUpload, analysis: Analysis) =>
    (await this.load()).uploads.record(identity, upload, analysis);
  validate = async (ctx: Context, identity: Identity) => (await this.load()).uploads.validate(ctx, identity);

  validateInput = async (
    identity: Identity,
    body: { format: string; uploadId?: string; mappings?: Record<string, EntityMapping>; scaffold?: boolean; statuses?: StatusPolicy },
  ) => (await this.load()).planning.validateInput(identity, body);
  snapshotOf = async (input: ImportInput, identity: Identity) => (await this.load()).planning.snapshotOf(input, identity);
  draftFor = async (input: ImportInput, mode: SafetyMode, identity: Identity) =>
    (await this.load()).planning.draftFor(input, mode, identity);
  preview = async (identity: Identity, body: PreviewBody) => (await this.load()).planning.preview(identity, body);
  planView = async (plan: ImportPlan) => (await this.load()).planning.planView(plan);

  run = async (identity: Identity, body: { planId: string; confirmed: boolean }) => (await this.load()).execution.run(identity, body);
  applyClaimed = async (identity: Identity, planId: string, jobId: string, options: { inline?: boolean; hooks?: RunHooks } = {}) =>
    (await this.load()).execution.applyClaimed(identity, planId, jobId, options);
  applyOperation = async (op: DataOperation, ctx: DomainContext & { plan: DataPlan }) =>
    (await this.load()).execution.applyOperation(op, ctx);
  verifyRun = async (plan: DataPlan) => (await this.load()).execution.verifyRun(plan);
  execute = async (jobId: string, hooks: ExecuteHooks = {}) => (await this.load()).runner.execute(jobId, hooks);

  jobsList = async (identity: Identity, jobId?: string) => (await this.load()).jobs.jobsList(identity, jobId);
  job = async (identity: Identity, jobId: string) => (await this.load()).jobs.job(identity, jobId);
  runs = async (identity: Identity, limit?: number) => (await this.load()).jobs.runs(identity, limit);
  runView = async (identity: Identity, jobId: string, page: { offset: number; limit: number }) =>
    (await this.load()).jobs.runView(identity, jobId, page);
  planAndClaim = async (identity: Identity, uploadId: string, format: string, options: { collection?: string; scaffold: boolean }) =>
    (await this.load()).jobs.planAndClaim(identity, uploadId, format, options);

  /** Removes job folders and upload records past the retention time (and crash leftovers). */
  async sweep(now = Date.now()): Promise<number> {
    const cutoff = now - this.deps.options.retentionHours * 3600 * 1000;
    const old = await this.deps.store.uploads.findAll({ where: { created_at: { [Op.lt]: cutoff } } });
    for (const u of old) await rm(u.work_dir, { recursive: true, force: true });
    let removed = old.length;
    await this.deps.store.uploads.destroy({ where: { created_at: { [Op.lt]: cutoff } } });
    for (const name of await readdir(this.root).catch(() => [] as string[])) {
      const path = join(this.root, name);
      const st = await stat(path).catch(() => null);
      if (st && st.mtimeMs < cutoff) {
        await rm(path, { recursive: true, force: true });
        removed++;
      }
    }
    return removed;
  }
}

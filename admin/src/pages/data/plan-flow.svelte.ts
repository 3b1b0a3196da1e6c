// The plan → review → apply flow every data page drives (config, migrations, backups restore, content
// export, import and sync): the plan shown, whether a plan or an apply is under way, the error in human
// terms, and what the apply did (an inline answer or a background job followed live). A page makes one
// `new PlanFlow()` (or with its own error wording), calls `makePlan(ask)` and `apply(confirmed, run)`,
// and shows it all with <DataOperation {flow} ... />.
import { humanError, type HumanError } from './human';
import { applyPlan, type ApplyRoute, type JobsRoute } from './live';
import type { ApplyResult, DataJob, Plan } from './types';

/** What an apply answered: the inline result, or the last state of the background job (and its id). */
export interface Applied {
  result: ApplyResult | null;
  job: DataJob | null;
  jobId: string | null;
}

/** An inline-only answer as an `Applied` (routes the page reads directly, without following a job). */
export const inline = (result: ApplyResult): Applied => ({ result, job: null, jobId: null });

export class PlanFlow {
  /** The plan under review (null: none, or it was applied or dismissed). */
  plan = $state<Plan | null>(null);
  planning = $state(false);
  applying = $state(false);
  /** The last plan's or apply's failure, in words (data-code keeps the code). */
  error = $state<HumanError | null>(null);
  result = $state<ApplyResult | null>(null);
  job = $state<DataJob | null>(null);

  #abort: AbortController | null = null;
  readonly #describe: (err: unknown) => HumanError;

  constructor(describe: (err: unknown) => HumanError = humanError) {
    this.#describe = describe;
  }

  /** Forgets the plan, its error and what the last apply did (e.g. when another target is chosen). */
  reset(): void {
    this.plan = null;
    this.result = null;
    this.error = null;
  }

  /** Dismisses the plan under review (the review's Cancel). */
  dismiss = (): void => {
    this.plan = null;
  };

  /** Shows `error` as the flow's failure (e.g. a follow-up step of the page). */
  fail(err: unknown): void {
    this.error = this.#describe(err);
  }

  /** Asks for a plan (`ask` calls the plan route): clears the last error and outcome, keeps the answer, or shows why there is none. */
  async makePlan(ask: () => Promise<Plan>): Promise<void> {
    this.planning = true;
    this.error = null;
    this.result = null;
    this.job = null;
    try {
      this.plan = await ask();
    } catch (err) {
      this.plan = null;
      this.error = this.#describe(err);
    } finally {
      this.planning = false;
    }
  }

  /**
   * Applies the plan under review with `run` (usually `flow.post(route, ...)`). The plan is then gone and
   * the inline result shown; `after` runs next (reload lists, toasts) while the flow still counts as
   * applying. A failure of either is shown as `error`.
   */
  async apply(
    confirmed: boolean,
    run: (plan: Plan, confirmed: boolean) => Promise<Applied>,
    after?: (done: Applied, plan: Plan) => unknown,
  ): Promise<void> {
    const plan = this.plan;
    if (!plan) return;
    this.applying = true;
    this.error = null;
    try {
      const done = await run(plan, confirmed);
      this.plan = null;
      this.result = done.result;
      await after?.(done, plan);
    } catch (err) {
      this.error = this.#describe(err);
    } finally {
      this.applying = false;
    }
  }

  /**
   * POSTs a plan to an apply-like route; a background apply is followed on `jobsRoute` (each state is
   * shown as `job`, and hides the plan) until it is completed or failed, or the page is left.
   */
  post(route: ApplyRoute, plan: Plan, confirmed: boolean, follow: { jobsRoute: JobsRoute; domain: string }): Promise<Applied> {
    this.#abort = new AbortController();
    return applyPlan(route, plan, confirmed, {
      ...follow,
      onJob: (j) => {
        this.plan = null;
        this.job = j;
      },
      signal: this.#abort.signal,
    });
  }

  /** Stops following a background job (the page is left). */
  close(): void {
    this.#abort?.abort();
  }
}

/** Whether an apply finished well: inline with outcome success, or its job completed with success. */
export const succeeded = (done: Applied): boolean =>
  done.result?.outcome === 'success' || (done.job?.status === 'completed' && done.job.outcome === 'success');

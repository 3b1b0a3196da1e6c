// Live progress of data operations: the completion stream (GET /api/data-ops/events, `event:
// completed`, EventSource sends Accept: text/event-stream with the session cookie) and polling of a
// domain's jobs route for a background apply's progress.
import { remote } from '../../lib/remote';
import { isQueued, type ApplyResult, type CompletedEvent, type DataJob, type Plan, type QueuedApply } from './types';

/** The apply-like routes of the data domains the pages drive (typed: a changed route breaks the type check). */
export type ApplyRoute =
  | 'POST /api/config/apply'
  | 'POST /api/content-export/run'
  | 'POST /api/content-import/apply'
  | 'POST /api/content-sync/push'
  | 'POST /api/content-sync/pull';
/** The routes listing a domain's background jobs (`?jobId=` narrows to one). */
export type JobsRoute =
  | 'GET /api/config/history'
  | 'GET /api/content-export/jobs'
  | 'GET /api/content-import/jobs'
  | 'GET /api/content-sync/jobs'
  | 'GET /api/backups/jobs';

/** Calls `onCompleted` for every finished apply of `domain` in the caller's tenant; returns a closer. */
export function watchCompletions(domain: string, onCompleted: (e: CompletedEvent) => void): () => void {
  if (typeof EventSource === 'undefined') return () => undefined;
  const source = new EventSource(`/api/data-ops/events?domain=${encodeURIComponent(domain)}`);
  source.addEventListener('completed', (e) => {
    try {
      onCompleted(JSON.parse((e as MessageEvent<string>).data) as CompletedEvent);
    } catch {
      /* a malformed event is ignored */
    }
  });
  return () => source.close();
}

/**
 * Polls `jobsRoute?jobId=` until the job is completed or failed (or `signal` aborts), reporting each
 * state; resolves to the last one.
 */
export async function followJob(
  jobsRoute: JobsRoute,
  jobId: string,
  onUpdate: (job: DataJob) => void,
  signal: AbortSignal,
  intervalMs = 700,
): Promise<DataJob | null> {
  let last: DataJob | null = null;
  while (!signal.aborted) {
    try {
      const { jobs } = (await remote(jobsRoute, { query: { jobId }, signal })) as { jobs: DataJob[] };
      if (jobs[0]) {
        last = jobs[0];
        onUpdate(last);
        if (last.status === 'completed' || last.status === 'failed') return last;
      }
    } catch (err) {
      if ((err as Error).name === 'AbortError') return last;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return last;
}

/**
 * Applies a reviewed plan: POSTs `{planId, planHash, confirmed}` to an apply-like route. An inline answer
 * (200) is returned as `result`; a background apply (202) is followed on `jobsRoute` (each state goes to
 * `onJob`) until it is completed or failed, and its last state is returned as `job`.
 */
export async function applyPlan(
  route: ApplyRoute,
  plan: Plan,
  confirmed: boolean,
  follow: { jobsRoute: JobsRoute; domain: string; onJob: (job: DataJob) => void; signal: AbortSignal },
): Promise<{ result: ApplyResult | null; job: DataJob | null; jobId: string | null }> {
  const answer = (await remote(route, { body: { planId: plan.planId, planHash: plan.planHash, confirmed } })) as ApplyResult | QueuedApply;
  if (!isQueued(answer)) return { result: answer, job: null, jobId: null };
  const queued: DataJob = {
    jobId: answer.jobId,
    domain: follow.domain,
    status: 'queued',
    progress: { processed: 0, total: 0 },
    createdAt: new Date().toISOString(),
  };
  follow.onJob(queued);
  const last = await followJob(follow.jobsRoute, answer.jobId, follow.onJob, follow.signal);
  return { result: null, job: last ?? queued, jobId: answer.jobId };
}

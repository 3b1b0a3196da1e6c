// Live progress of data operations: the completion stream (GET /api/data-ops/events, `event:
// completed`, EventSource sends Accept: text/event-stream with the session cookie) and polling of a
// domain's jobs route for a background apply's progress.
import { api } from '../../lib/api';
import { isQueued, type ApplyResult, type CompletedEvent, type DataJob, type Plan, type QueuedApply } from './types';

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
 * Polls `jobsPath?jobId=` until the job is completed or failed (or `signal` aborts), reporting each
 * state; resolves to the last one.
 */
export async function followJob(
  jobsPath: string,
  jobId: string,
  onUpdate: (job: DataJob) => void,
  signal: AbortSignal,
  intervalMs = 700,
): Promise<DataJob | null> {
  let last: DataJob | null = null;
  while (!signal.aborted) {
    try {
      const { jobs } = await api.get<{ jobs: DataJob[] }>(jobsPath, { jobId }, { signal });
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
 * (200) is returned as `result`; a background apply (202) is followed on `jobsPath` (each state goes to
 * `onJob`) until it is completed or failed, and its last state is returned as `job`.
 */
export async function applyPlan(
  path: string,
  plan: Plan,
  confirmed: boolean,
  follow: { jobsPath: string; domain: string; onJob: (job: DataJob) => void; signal: AbortSignal },
): Promise<{ result: ApplyResult | null; job: DataJob | null; jobId: string | null }> {
  const answer = await api.post<ApplyResult | QueuedApply>(path, { planId: plan.planId, planHash: plan.planHash, confirmed });
  if (!isQueued(answer)) return { result: answer, job: null, jobId: null };
  const queued: DataJob = {
    jobId: answer.jobId,
    domain: follow.domain,
    status: 'queued',
    progress: { processed: 0, total: 0 },
    createdAt: new Date().toISOString(),
  };
  follow.onJob(queued);
  const last = await followJob(follow.jobsPath, answer.jobId, follow.onJob, follow.signal);
  return { result: null, job: last ?? queued, jobId: answer.jobId };
}

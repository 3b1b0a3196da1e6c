/** The background creates of a tenant as data-operation jobs (GET /api/backups/jobs). */
import type { Identity, JobQueue, JobView } from '../../kernel/sdk.js';

export const CREATE_JOB = 'backups.create';

function jobView(j: JobView) {
  const p = j.payload as { backupId?: string };
  return {
    jobId: j.jobId,
    domain: 'backup',
    status: j.status,
    progress: { processed: j.progress?.processed ?? 0, total: j.progress?.total ?? 0 },
    ...(j.status === 'completed'
      ? { outcome: 'success' }
      : j.status === 'failed'
        ? { outcome: 'failure', error: j.error ?? undefined }
        : {}),
    backupId: p?.backupId ?? null,
    createdAt: j.createdAt,
    ...(j.completedAt ? { completedAt: j.completedAt } : {}),
  };
}

export async function backupJobs(jobs: JobQueue, identity: Identity, jobId?: string) {
  const list: JobView[] = jobId
    ? await jobs.get(jobId).then(
        (j) => (j.type === CREATE_JOB && j.tenantId === identity.tenantId ? [j] : []),
        () => [],
      )
    : await jobs.list({ type: CREATE_JOB, tenantId: identity.tenantId, limit: 100 });
  return list.map(jobView);
}

import { dataOf, postAs } from './content.js';
import type { TestKernel, TestResponse } from './kernel.js';

/**
 * Polls GET /api/importers/jobs/:jobId as `identity` every 50 ms, at most `tries` times, until the job is
 * no longer processing; returns the last answer's job (still processing when it did not finish in time).
 */
export async function pollImportJob(t: TestKernel, jobId: string, identity = 'admin', tries = 600): Promise<any> {
  let job: any;
  for (let i = 0; i < tries; i++) {
    job = (await (await t.request(`/api/importers/jobs/${jobId}`, { identity })).json()).data;
    if (job.status !== 'processing') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return job;
}

/** pollImportJob that throws when the job has not finished in time. */
export async function finishedImportJob(t: TestKernel, jobId: string, identity: string, tries: number): Promise<any> {
  const job = await pollImportJob(t, jobId, identity, tries);
  if (job.status === 'processing') throw new Error('job did not finish');
  return job;
}

/** POST /api/importers/validate of one file as `identity`: the answer's status and body. */
export async function validateUpload(
  t: TestKernel,
  content: Buffer | string,
  filename: string,
  identity = 'admin',
): Promise<{ status: number; body: any }> {
  const fd = new FormData();
  fd.append('file', new Blob([content]), filename);
  const res: TestResponse = await postAs(t, identity, '/api/importers/validate', fd);
  return { status: res.status, body: await res.json() };
}

/**
 * Polls GET /api/importers/jobs/:jobId as the admin every `intervalMs`, at most `tries` times, until the job is
 * neither queued nor processing (each answer must be a 200, dataOf); returns the last job.
 */
export async function settledImportJob(t: TestKernel, jobId: string, tries: number, intervalMs: number): Promise<any> {
  let job: any;
  for (let i = 0; i < tries; i++) {
    job = await dataOf(await t.request(`/api/importers/jobs/${jobId}`, { identity: 'admin' }));
    if (job.status !== 'processing' && job.status !== 'queued') break;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return job;
}

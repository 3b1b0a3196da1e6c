import type { Context } from 'koa';
import type { Identity } from '../../kernel/sdk.js';
import { openEventStream } from './event-stream.js';
import type { ImportersService } from './importers-service.js';

/** How often the job record is read while it runs (it lives in the database: any instance may run it). */
const POLL_MS = 250;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;
/** The stream gives up (an `error` event) after this long; the job itself keeps running. */
const MAX_MS = 6 * 3600 * 1000;

/**
 * GET /api/importers/jobs/:jobId/events: a run started with POST /api/importers/run followed as server-sent
 * events, the same as POST /api/migration/import sends: `progress` {step: 'importing', message, percent} when
 * the count moves, then `complete` {imported, failed, skipped, durationMs, jobId} or `error`. An unknown job is a plain
 * 404 before the stream starts.
 */
export async function streamJobEvents(ctx: Context, identity: Identity, service: ImportersService, jobId: string): Promise<void> {
  let job = await service.job(identity, jobId);
  const stream = openEventStream(ctx);
  const send = stream.send;

  const follow = async () => {
    const started = Date.now();
    let lastBeat = started;
    let last = -1;
    for (;;) {
      if (job.progress.processed !== last) {
        last = job.progress.processed;
        const { processed, total } = job.progress;
        send('progress', {
          step: 'importing',
          message: `Imported ${processed} of ${total}`,
          percent: total ? Math.round((processed / total) * 100) : 0,
        });
      }
      if (job.status === 'completed') {
        const sum = (k: 'imported' | 'failed' | 'skipped') => Object.values(job.results).reduce((n, r) => n + r[k], 0);
        send('complete', { imported: sum('imported'), failed: sum('failed'), skipped: sum('skipped'), durationMs: job.durationMs, jobId });
        return;
      }
      if (job.status === 'failed') {
        send('error', { success: false, error: 'IMPORT_FAILED', message: job.error ?? 'The import failed' });
        return;
      }
      if (stream.closed) return;
      if (Date.now() - started > MAX_MS) {
        send('error', {
          success: false,
          error: 'IMPORT_FAILED',
          message: 'Stopped following the job; it may still be running: GET /api/importers/jobs/:jobId',
        });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (Date.now() - lastBeat > HEARTBEAT_MS) {
        lastBeat = Date.now();
        stream.comment('still importing');
      }
      job = await service.job(identity, jobId);
    }
  };
  follow()
    .catch(() => send('error', { success: false, error: 'INTERNAL_ERROR', message: 'Following the import failed' }))
    .finally(() => stream.end());
}

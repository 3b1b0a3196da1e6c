// The live import: its progress, the log, how it ended (an outcome or an error). Both ways of running
// follow the same server-sent events (progress, complete, error): the SSE answer of POST
// /api/migration/import for the plan that route builds itself, or the job's own stream
// (GET /api/importers/jobs/:id/events) after POST /api/importers/run for a reviewed plan.
import { t } from '../../i18n/index.svelte';
import { errorText } from '../../lib/errors';
import { ApiError, remote } from '../../lib/remote';
import { getEventStream, postEventStream, type StreamEvent } from './sse';
import type { Job } from './types';

export interface Progress {
  percent: number;
  step: string;
  message: string;
}
export interface RunError {
  code: string;
  message: string;
}
export interface Outcome {
  imported: number;
  failed: number;
  durationMs: number;
  job: Job | null;
  via: 'stream' | 'job';
}

const IDLE: Progress = { percent: 0, step: '', message: '' };

export class ImportRun {
  progress = $state<Progress>({ ...IDLE });
  log = $state<string[]>([]);
  outcome = $state<Outcome | null>(null);
  error = $state<RunError | null>(null);

  #abort: AbortController | null = null;
  /** Called once the import reported its result (the page moves on to the results). */
  readonly #ondone: () => void;

  constructor(ondone: () => void) {
    this.#ondone = ondone;
  }

  /** Stops following a run (the import itself goes on on the server) and forgets it. */
  reset(): void {
    this.#abort?.abort();
    this.log = [];
    this.outcome = null;
    this.error = null;
    this.progress = { ...IDLE };
  }

  abort(): void {
    this.#abort?.abort();
  }

  begin(): void {
    this.error = null;
    this.log = [];
    this.progress = { percent: 0, step: 'starting', message: t('importers.run.starting') };
  }

  /** The plan POST /api/migration/import builds from the form: its answer is the event stream. */
  async stream(form: FormData): Promise<void> {
    const signal = this.#start();
    await this.#follow(
      (onEvent) => postEventStream('/api/migration/import', form, onEvent, signal),
      (jobId) => jobId ?? null,
      'stream',
      () => t('importers.run.streamEnded'),
    );
  }

  /** A reviewed plan: POST /api/importers/run starts the job, whose event stream is followed. */
  async job(planId: string): Promise<void> {
    const signal = this.#start();
    let jobId = '';
    await this.#follow(
      async (onEvent) => {
        const r = await remote('POST /api/importers/run', { body: { planId, confirmed: true } });
        jobId = r.jobId;
        this.log = [r.message];
        await getEventStream(`/api/importers/jobs/${r.jobId}/events`, onEvent, signal);
      },
      () => jobId,
      'job',
      () => t('importers.run.jobEnded', { path: `GET /api/importers/jobs/${jobId}` }),
    );
  }

  #start(): AbortSignal {
    this.#abort = new AbortController();
    return this.#abort.signal;
  }

  /** Reads the events `read` delivers until the import completes or fails; a stream that just ends is an error too. */
  async #follow(
    read: (onEvent: (e: StreamEvent) => Promise<void>) => Promise<void>,
    jobOf: (reported: string | undefined) => string | null,
    via: Outcome['via'],
    ended: () => string,
  ): Promise<void> {
    let finished = false;
    const onEvent = async ({ event, data }: StreamEvent) => {
      if (event === 'progress') {
        this.progress = { percent: data.percent, step: data.step, message: data.message };
        if (this.log[this.log.length - 1] !== data.message) this.log = [...this.log, data.message];
      } else if (event === 'complete') {
        finished = true;
        await this.#complete(data, jobOf(data.jobId), via);
      } else if (event === 'error') {
        finished = true;
        this.error = { code: data.error, message: data.message };
      }
    };
    try {
      await read(onEvent);
      if (!finished) this.error = { code: 'STREAM_ENDED', message: ended() };
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      this.error = err instanceof ApiError ? { code: err.code, message: errorText(err) } : { code: 'ERROR', message: errorText(err) };
    }
  }

  async #complete(data: { imported: number; failed: number; durationMs: number }, jobId: string | null, via: Outcome['via']) {
    // The stream reports the totals; the job's record adds the per-entity results and the warnings.
    // (The migration stream shows 100% while that record loads; the job's stream once it has.)
    const done = () =>
      (this.progress = {
        ...this.progress,
        percent: 100,
        step: 'complete',
        message: t('importers.run.imported', { count: data.imported }),
      });
    if (via === 'stream') done();
    const job = jobId ? await remote('GET /api/importers/jobs/:jobId', { params: { jobId } }).catch(() => null) : null;
    if (via === 'job') done();
    this.outcome = { imported: data.imported, failed: data.failed, durationMs: data.durationMs, job, via };
    this.#ondone();
  }
}

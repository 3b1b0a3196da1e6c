import type { Context } from 'koa';
import { AppError, type Identity } from '../../kernel/sdk.js';
import { openEventStream } from './event-stream.js';
import type { ImportersService } from './importers-service.js';

const flag = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v);

/**
 * POST /api/migration/import: the upload is received first (refusals are ordinary JSON errors), then the
 * answer is a server-sent event stream: `progress` {step, message, percent} for detecting, parsing,
 * mapping and importing, then `complete` {imported, failed, skipped, durationMs}, or `error` in the error shape.
 * The import runs inline in this request whatever its size: the stream is its progress channel.
 */
export async function streamImport(ctx: Context, identity: Identity, service: ImportersService): Promise<void> {
  const started = Date.now();
  const upload = await service.receive(ctx);
  const stream = openEventStream(ctx);
  const send = stream.send;
  const progress = (step: string, message: string, percent: number) =>
    send('progress', { step, message, percent: Math.max(0, Math.min(100, Math.round(percent))) });

  const work = async () => {
    const analysis = await service.analyse(upload, upload.fields.format, (step) =>
      step === 'detecting' ? progress('detecting', 'Detecting the format', 5) : progress('parsing', 'Parsing the upload', 20),
    );
    const view = await service.record(identity, upload, analysis);
    if (!view.valid) {
      send('error', {
        success: false,
        error: 'IMPORT_UPLOAD_INVALID',
        message: view.blockedReasons.join('; ') || 'The upload did not validate',
      });
      return;
    }
    progress(
      'parsing',
      `Parsed ${Object.entries(view.summary)
        .map(([e, n]) => `${n} ${e}`)
        .join(', ')} (${view.detectedFormat})`,
      35,
    );
    progress('mapping', 'Mapping fields to collections', 40);
    const { job, view: plan } = await service.planAndClaim(identity, upload.uploadId, view.detectedFormat!, {
      collection: upload.fields.collection || undefined,
      scaffold: flag(upload.fields.scaffold),
    });
    const targets = plan.operations.filter((o) => o.targetCollection).map((o) => `${o.sourceType} -> ${o.targetCollection}`);
    progress('mapping', targets.length ? `Targets: ${targets.join(', ')}` : 'No target collection (pass collection or scaffold=true)', 45);
    // Inline whatever the size (the stream is its progress channel), through the data-operation engine.
    const applied = await service.applyClaimed(identity, plan.planId, job.id, {
      inline: true,
      hooks: {
        progress: (processed, total) =>
          progress('importing', `Imported ${processed} of ${total}`, 45 + (total ? (processed / total) * 55 : 55)),
        shouldStop: () => stream.closed,
      },
    });
    if (applied === 'interrupted') {
      send('error', {
        success: false,
        error: 'IMPORT_INTERRUPTED',
        message: `The server is stopping; the import resumes in the background when it is back: GET /api/importers/jobs/${job.id}`,
        jobId: job.id,
      });
      return;
    }
    const done = await service.job(identity, job.id);
    if (done.status !== 'completed') {
      send('error', { success: false, error: 'IMPORT_FAILED', message: done.error ?? 'The import failed' });
      return;
    }
    const sum = (k: 'imported' | 'failed' | 'skipped') => Object.values(done.results).reduce((n, r) => n + r[k], 0);
    send('complete', {
      imported: sum('imported'),
      failed: sum('failed'),
      skipped: sum('skipped'),
      durationMs: Date.now() - started,
      jobId: job.id,
    });
  };
  work()
    .catch((err: unknown) => {
      const e = err instanceof AppError && err.status < 500 ? err : null;
      send('error', { success: false, error: e?.code ?? 'INTERNAL_ERROR', message: e?.message ?? 'The import failed' });
    })
    .finally(() => stream.end());
}

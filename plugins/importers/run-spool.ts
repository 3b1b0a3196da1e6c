/**
 * The record loop of an import run (runner.ts): the spool is read line by line (readline, paused while the
 * writes catch up); each batch of lines is prepared in the worker pool a few batches ahead of the one being
 * written, so the event loop only writes. Progress is reported after each batch; a resumed run passes over
 * the records written before its interruption.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { SOURCE_FIELD } from './field-names.js';
import { parseEntity, type PrepareOutput } from './prepare-batch.js';
import type { RunContext } from './run-context.js';
import type { EntityWriter } from './run-entities.js';

/** How far the spool got: records processed (with those of the interrupted run), and whether the run was stopped. */
export interface SpoolProgress {
  processed: number;
  stopped: boolean;
}

/** Writes one prepared batch (its warnings first, then entity by entity) and reports progress. */
function batchWriter(run: RunContext, writeEntity: EntityWriter, total: number, progress: SpoolProgress) {
  const { input } = run;
  return async (batch: PrepareOutput) => {
    for (const w of batch.warnings) run.warn(w.message, w.line);
    const groups = new Map<string, PrepareOutput['items']>();
    for (const e of batch.items) (groups.get(e.entity) ?? groups.set(e.entity, []).get(e.entity)!).push(e);
    for (const [entity, group] of groups) await writeEntity(entity, group);
    progress.processed += batch.items.length;
    await input.progress(progress.processed, total);
    if (input.shouldStop?.()) progress.stopped = true;
  };
}

/** Batches being prepared in the pool, in spool order; their results are written one after the other. */
function preparePool(run: RunContext, importedAt: string) {
  const { input } = run;
  const common = {
    format: input.plan.format,
    importedAt,
    mode: input.plan.mode,
    fetchRemote: Boolean(input.fetchRemote),
    targets: run.prepareTargets,
    sourceField: SOURCE_FIELD,
  };
  const ahead: Array<Promise<PrepareOutput>> = [];
  const submit = (lines: string[], firstLine: number) => {
    const task = input.prepare({ ...common, lines, firstLine }).then((res) => {
      if (!res.ok) throw new Error(`the import's records could not be prepared: ${res.issues.map((i) => i.message).join('; ')}`);
      return res.value;
    });
    task.catch(() => undefined); // awaited in order below; a run that stops first leaves it
    ahead.push(task);
  };
  return { ahead, submit };
}

/** Reads, prepares and writes the spool's records in batches; answers how far it got. */
export async function writeSpool(run: RunContext, writeEntity: EntityWriter, total: number, importedAt: string): Promise<SpoolProgress> {
  const { input } = run;
  const progress: SpoolProgress = { processed: input.resume?.processed ?? 0, stopped: false };
  let toSkip = progress.processed;
  const write = batchWriter(run, writeEntity, total, progress);
  const { ahead, submit } = preparePool(run, importedAt);
  const depth = Math.max(1, input.prepareAhead ?? 2);
  const batchSize = Math.max(1, Math.min(1000, input.batchSize));
  const lines = createInterface({ input: createReadStream(input.spoolPath, { encoding: 'utf8' }), crlfDelay: Infinity });
  let n = 0;
  let chunk: string[] = [];
  let first = 1;
  try {
    for await (const line of lines) {
      n++;
      if (toSkip > 0) {
        // Written before the interruption: passed over (counting valid records, as they were counted).
        if (!line.trim()) continue;
        if (parseEntity(line)) toSkip--;
        else run.warn(`spool line ${n} is not a valid entity, skipped`);
        continue;
      }
      if (!chunk.length) first = n;
      chunk.push(line);
      if (chunk.length < batchSize) continue;
      submit(chunk, first);
      chunk = [];
      if (ahead.length > depth) await write(await ahead.shift()!);
      if (progress.stopped) break;
    }
    if (!progress.stopped && chunk.length) submit(chunk, first);
    while (!progress.stopped && ahead.length) await write(await ahead.shift()!);
  } finally {
    lines.close();
  }
  return progress;
}

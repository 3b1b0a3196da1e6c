/**
 * What the steps of an import run (runner.ts) share: the run's input, the targets it resolved before the
 * first record, its per-entity results and its warnings.
 */
import type { CollectionInfo } from '../content/public.js';
import type { PrepareTarget } from './prepare-batch.js';
import type { EntityResult, RunInput, SkipReason } from './runner.js';

export interface RunContext {
  input: RunInput;
  tenantId: string;
  /** Per source entity, counted as the records are written (a resumed run carries on from its results). */
  results: Record<string, EntityResult>;
  /** A warning for the job (at most MAX_WARNINGS are kept, the rest counted). */
  warn(message: string, line?: number): void;
  /** Source entity -> target collection, for the entities the plan does not skip. */
  targets: Map<string, string>;
  /** The target collections' schemas, read once before the first record. */
  infos: Map<string, CollectionInfo>;
  /** What the pool's prepare task needs per entity (prepare-batch.ts). */
  prepareTargets: Record<string, PrepareTarget>;
  /** The job folder, resolved: attachment paths must lie inside it. */
  workRoot: string;
}

export const messageOf = (err: unknown) => (err as Error)?.message ?? String(err);

export const emptyResult = (): EntityResult => ({ imported: 0, failed: 0, skipped: 0, updated: 0 });

/** Counts a skipped record, with its reason (explained in the job's warnings at the end). */
export function countSkip(r: EntityResult, reason: SkipReason): void {
  r.skipped++;
  (r.skipReasons ??= {})[reason] = (r.skipReasons[reason] ?? 0) + 1;
}

import { realpath } from 'node:fs/promises';
import type { Identity } from '../../kernel/sdk.js';
import type { ImportPlan } from './planner.js';
import type { LocalClient } from '../content/public.js';
import type { MediaClient } from '../media/public.js';
import type { PrepareInput, PrepareResult } from './prepare-batch.js';
import { resolveLinks } from './resolve-links.js';
import type { RemoteFetchOptions } from './remote-fetch.js';
import { emptyResult, type RunContext } from './run-context.js';
import { entityWriter } from './run-entities.js';
import { writeSpool } from './run-spool.js';
import { resolveTargets, scaffoldMissing } from './run-targets.js';
import type { ImportStore } from './store.js';

/** Why records were skipped: counted per entity, and explained in the warnings. */
export type SkipReason = 'alreadyImported' | 'unchanged' | 'duplicateInFile' | 'notMapped' | 'localeSkipped';
export interface EntityResult {
  imported: number;
  failed: number;
  skipped: number;
  updated: number;
  skipReasons?: Partial<Record<SkipReason, number>>;
}
export interface RunOutcome {
  results: Record<string, EntityResult>;
  warnings: Array<{ message: string; line?: number }>;
  processed: number;
  total: number;
  /** Collections this run created (scaffold). */
  scaffolded: string[];
}
export interface RunInput {
  plan: ImportPlan;
  /** The import job: the ledger rows this run writes name it (the run's items). */
  jobId?: string;
  identity: Identity;
  spoolPath: string;
  workDir: string;
  content: LocalClient;
  media: MediaClient;
  store: ImportStore;
  /** Spool records per prepared batch and per write transaction (at most 1,000). */
  batchSize: number;
  /** Prepares a batch of spool lines in the worker pool (prepare-task.ts). */
  prepare(input: PrepareInput): Promise<PrepareResult>;
  /** Batches prepared ahead of the one being written (the pool's threads). */
  prepareAhead?: number;
  /** Set when attachments known only by URL are fetched into the media library (else the URL is recorded). */
  fetchRemote?: RemoteFetchOptions;
  /** After each batch; a rejection stops the run (the stream's client went away). */
  progress(processed: number, total: number): Promise<void>;
  shouldStop?(): boolean;
  /** Filled with the collections this run creates (scaffold), also when the run then fails. */
  scaffolded?: string[];
  /** Filled with the entries this run creates (not those it updates), also when the run then fails: a failed run removes them again. */
  created?: Array<{ collection: string; id: string }>;
  /** Resuming an interrupted run: the spool's first `processed` entities are done, with these results and warnings. */
  resume?: { processed: number; results: Record<string, EntityResult>; warnings: RunOutcome['warnings'] };
}

const MAX_WARNINGS = 200;

/**
 * Writes the spool file's entities into their target collections, step by step: the missing collections are
 * scaffolded (run-targets.ts), then the spool is read line by line and each batch of lines is prepared in the
 * worker pool (prepare-task.ts: mapped, coerced, checked against the schema, rich text sanitised, checksummed),
 * a few batches ahead of the one being written, so the event loop only writes (run-spool.ts): per batch and
 * entity one ledger query, then one short transaction (the content SDK's insertPrepared: multi-row INSERTs of
 * the entries, their revisions and their ledger rows). A refused batch is retried entity by entity so one bad
 * record fails alone (run-entities.ts). The delta ledger (import_links): a record imported before is skipped
 * (add) or updated when its data changed (merge). Last, the planned links are resolved (resolve-links.ts).
 */
export async function runImport(input: RunInput): Promise<RunOutcome> {
  const { plan, content } = input;
  const results: Record<string, EntityResult> = structuredClone(input.resume?.results ?? {});
  // A resumed run's explanations of skips are made again at its end; its other warnings carry on.
  const warnings: RunOutcome['warnings'] = (input.resume?.warnings ?? []).filter((w) => !/^\S+: \d+ skipped: /.test(w.message));
  let dropped = 0;
  const warn = (message: string, line?: number) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(line === undefined ? { message } : { message, line });
    else dropped++;
  };
  const targets = new Map(
    plan.operations.filter((o) => o.targetCollection && o.action !== 'skip').map((o) => [o.sourceType, o.targetCollection!]),
  );
  for (const o of plan.operations) results[o.sourceType] ??= emptyResult();
  const scaffolded: string[] = input.scaffolded ?? [];

  // The locales the plan creates (and only those), then the missing collections.
  await createPlannedLocales(content, plan);
  await scaffoldMissing(content, plan, scaffolded);
  const { infos, prepareTargets } = await resolveTargets(content, plan, targets);
  const workRoot = await realpath(input.workDir);
  const importedAt = new Date().toISOString();
  const run: RunContext = { input, tenantId: input.identity.tenantId, results, warn, targets, infos, prepareTargets, workRoot };

  const total = plan.operations.reduce((n, o) => n + o.count, 0);
  const { processed, stopped } = await writeSpool(run, entityWriter(run), total, importedAt);
  if (!stopped && plan.links?.length) await resolveLinks(input, warn);
  if (dropped) warnings.push({ message: `${dropped} more warnings not shown` });
  return { results, warnings: [...skipExplanations(results, targets, plan.mode), ...warnings], processed, total, scaffolded };
}

/** Creates the locales the plan says `create` that do not exist yet (another run or an administrator may have made them since). */
async function createPlannedLocales(content: LocalClient, plan: ImportPlan): Promise<void> {
  const wanted = (plan.locales ?? []).filter((l) => l.action === 'create' && l.target).map((l) => l.target!);
  if (!wanted.length) return;
  const have = new Set((await content.locales.list()).map((l) => l.code));
  for (const code of new Set(wanted)) if (!have.has(code)) await content.locales.create({ code });
}

const SKIP_TEXT: Record<SkipReason, (collection: string | undefined, mode: string) => string> = {
  alreadyImported: (c) => `imported into '${c}' before (mode add keeps the existing entries; mode merge updates changed ones)`,
  unchanged: (c) => `unchanged since they were imported into '${c}'`,
  duplicateInFile: () => 'repeat an external id seen earlier in this file',
  notMapped: () => 'not mapped to a collection',
  localeSkipped: () => 'are in a language the plan leaves out (locales)',
};

/** One line per entity that skipped records, saying how many and why (first in the job's warnings). */
function skipExplanations(results: Record<string, EntityResult>, targets: Map<string, string>, mode: string): Array<{ message: string }> {
  const out: Array<{ message: string }> = [];
  for (const [entity, r] of Object.entries(results)) {
    if (!r.skipped) continue;
    const why = Object.entries(r.skipReasons ?? {}).map(
      ([reason, n]) => `${n} ${SKIP_TEXT[reason as SkipReason](targets.get(entity), mode)}`,
    );
    out.push({ message: `${entity}: ${r.skipped} skipped: ${why.join('; ')}` });
  }
  return out;
}

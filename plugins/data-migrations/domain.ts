import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import type { Sequelize, Transaction } from 'sequelize';
import { z } from 'zod';
import { ConflictError, ValidationError } from '../../kernel/sdk.js';
import type { CollectionsService } from '../content/public.js';
import {
  parseInput,
  type DataDomainDefinition,
  type DataOperation,
  type DomainContext,
  type PlanDraft,
  type Risk,
  type StoredPlan,
  type VerifyResult,
} from '../data-ops/public.js';
import { MIGRATION_ID, maxRisk, type LoadedMigration } from './definition.js';
import type { DataMigrationsService } from './service.js';
import { collectionsOf, loadState, runMigration, touched, writeResult, writtenCollections } from './simulate.js';

export const DOMAIN_ID = 'migration';

/** POST /api/migrations/plan body: the migrations to plan (default: every pending one, in id order). */
export const planInput = z
  .object({
    ids: z.array(z.string().regex(MIGRATION_ID)).min(1).max(200).optional(),
  })
  .strict();
export interface MigrationInput {
  ids: string[] | null;
}
interface OperationPayload {
  id: string;
  checksum: string;
}

interface MigrationDeps {
  sequelize: () => Sequelize;
  collections: () => CollectionsService;
  service: () => DataMigrationsService;
}

async function select(deps: MigrationDeps, input: MigrationInput, tenantId: string, transaction?: Transaction) {
  const service = () => deps.service();
  const { migrations, errors } = await service().declared();
  const ledger = await service().ledger(tenantId, transaction);
  const applied = new Map(ledger.map((r) => [r.id, r]));
  const wanted = input.ids
    ? migrations.filter((m) => input.ids!.includes(m.definition.id))
    : migrations.filter((m) => !applied.has(m.definition.id));
  const alreadyApplied = wanted
    .filter((m) => applied.has(m.definition.id))
    .map((m) => ({ id: m.definition.id, row: applied.get(m.definition.id)! }));
  return { selected: wanted.filter((m) => !applied.has(m.definition.id)), alreadyApplied, errors, ledger };
}

/** Hash of the ledger, the selected definitions and the rows (id, version, updated_at) of the collections they touch. */
async function snapshot(deps: MigrationDeps, input: MigrationInput, ctx: DomainContext): Promise<string> {
  const { selected, ledger } = await select(deps, input, ctx.tenantId);
  const hash = createHash('sha256');
  hash.update(
    stringify({ ledger: ledger.map((r) => [r.id, r.checksum]), selected: selected.map((m) => [m.definition.id, m.checksum]) }) ?? '',
  );
  const names = [...new Set(selected.flatMap((m) => collectionsOf(m.definition)))].sort();
  const collections = deps.collections();
  for (const name of names) {
    let c;
    try {
      c = await collections.get(name);
    } catch {
      hash.update(`\0${name}:missing`);
      continue;
    }
    const rows = (await c.model.findAll({
      attributes: ['id', 'version', 'updated_at'],
      where: { tenant_id: ctx.tenantId },
      order: [['id', 'ASC']],
      raw: true,
    })) as unknown as Array<Record<string, unknown>>;
    hash.update(`\0${name}:${c.uid}:${c.version}`);
    for (const r of rows) hash.update(`|${String(r.id)}:${String(r.version)}:${String(r.updated_at)}`);
  }
  return hash.digest('hex');
}

/** The plan body, normalised: ids sorted and unique (null: every pending migration); an unknown id is 400. */
async function validate(deps: MigrationDeps, input: unknown): Promise<MigrationInput> {
  const parsed = parseInput(planInput, input ?? {}, 'Invalid migration plan request');
  const ids = parsed.ids ? [...new Set(parsed.ids)].sort() : null;
  if (ids) {
    const { migrations, errors } = await deps.service().declared();
    const known = new Set(migrations.map((m) => m.definition.id));
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length) {
      const bad = errors.length ? `; declarations with errors: ${errors.map((e) => e.source).join(', ')}` : '';
      throw new ValidationError(
        `Unknown migration ${unknown.join(', ')}${bad}`,
        unknown.map((id) => ({ path: 'body.ids', message: `no migration '${id}'` })),
      );
    }
  }
  return { ids };
}

/** Runs the selected migrations over an in-memory copy of the touched collections: counts, risk, samples; no writes. */
async function plan(deps: MigrationDeps, input: MigrationInput, ctx: DomainContext): Promise<PlanDraft> {
  const { selected, alreadyApplied, errors } = await select(deps, input, ctx.tenantId);
  const warnings: PlanDraft['warnings'] = [];
  const blockedReasons: string[] = [];
  for (const a of alreadyApplied)
    blockedReasons.push(`${a.id}: already applied (${a.row.appliedAt}, plan ${a.row.planId}); a migration runs once`);
  // Planning every pending migration: the declarations that could not be read are named (an explicit ids list does not concern them).
  if (!input.ids) for (const e of errors) warnings.push({ message: `declaration error (not planned): ${e.message}`, item: e.source });
  const names = [...new Set(selected.flatMap((m) => collectionsOf(m.definition)))];
  const { state, missing } = await loadState(deps.collections(), names, ctx.tenantId);
  for (const name of missing) blockedReasons.push(`No collection '${name}'`);
  const operations: DataOperation<OperationPayload>[] = [];
  const samples: PlanDraft['warnings'] = [];
  let risk: Risk = 'safe';
  // In id order over one state: each migration sees the ones before it, as apply will.
  for (const m of selected) {
    const result = runMigration(m.definition, state);
    blockedReasons.push(...result.problems);
    for (const w of result.warnings) warnings.push({ message: w });
    for (const s of result.samples) samples.push({ message: `sample: ${m.definition.id}`, item: s });
    operations.push({
      action: 'update',
      type: 'migration',
      target: m.definition.id,
      count: touched(result),
      payload: { id: m.definition.id, checksum: m.checksum },
    });
    risk = maxRisk(risk, m.risk);
  }
  // The engine scores any plan with warnings at least 'warning': samples of an additive-only plan
  // (backfills) are left out so its risk stays 'safe' (see the README).
  if (risk !== 'safe' || warnings.length) warnings.push(...samples);
  return { operations, warnings, blockedReasons, targetHash: await snapshot(deps, input, ctx), risk };
}

/** Runs one migration in the transaction: writes the difference and the ledger row (unique per tenant and migration). */
async function apply(deps: MigrationDeps, operation: DataOperation, ctx: DomainContext & { plan: StoredPlan }): Promise<void> {
  const service = () => deps.service();
  const payload = operation.payload as OperationPayload;
  const run = async (transaction: Transaction) => {
    const { migrations } = await service().declared();
    const m: LoadedMigration | undefined = migrations.find((x) => x.definition.id === payload.id);
    if (!m) throw new ConflictError(`Migration '${payload.id}' is no longer declared; plan again`);
    if (m.checksum !== payload.checksum) throw new ConflictError(`Migration '${payload.id}' changed since it was planned; plan again`);
    const ledger = await service().ledger(ctx.tenantId, transaction);
    if (ledger.some((r) => r.id === payload.id)) throw new ConflictError(`Migration '${payload.id}' is already applied`);
    const { state, missing } = await loadState(deps.collections(), collectionsOf(m.definition), ctx.tenantId, transaction);
    if (missing.length) throw new ConflictError(`Migration '${payload.id}': no collection ${missing.join(', ')}`);
    const result = runMigration(m.definition, state);
    if (result.problems.length)
      throw new ValidationError(
        `Migration '${payload.id}' failed: ${result.problems.slice(0, 3).join('; ')}`,
        result.problems.map((p) => ({ path: payload.id, message: p })),
      );
    const changes = await writeResult(deps.sequelize(), state, result, ctx.actor.userId, transaction, service().entries);
    // The unique (tenant, migration) key: a second instance that got this far fails here and rolls back.
    await service().record(
      ctx.tenantId,
      m,
      ctx.plan,
      ctx.actor.userId,
      { updated: result.updated.length, moved: result.moved.length },
      transaction,
    );
    const written = writtenCollections(result);
    // Nothing leaves the transaction before it commits: the list caches go and the entry events are published afterwards.
    transaction.afterCommit(() => void service().afterApply(ctx.tenantId, written, ctx.actor.userId, changes));
  };
  if (ctx.transaction) await run(ctx.transaction);
  else await deps.sequelize().transaction(run);
}

/** The ledger rows of the plan's migrations match it and their definitions; then the postconditions on the data. */
async function verify(deps: MigrationDeps, plan: StoredPlan, ctx: DomainContext): Promise<VerifyResult> {
  const service = () => deps.service();
  const discrepancies: string[] = [];
  const { migrations } = await service().declared();
  const ledger = new Map((await service().ledger(ctx.tenantId)).map((r) => [r.id, r]));
  const checked: LoadedMigration[] = [];
  for (const op of plan.operationsFull) {
    const payload = op.payload as OperationPayload;
    const row = ledger.get(payload.id);
    if (!row) {
      discrepancies.push(`${payload.id}: not in the ledger`);
      continue;
    }
    if (row.planHash !== plan.planHash)
      discrepancies.push(`${payload.id}: the ledger records plan ${row.planHash.slice(0, 12)}, not this plan`);
    if (row.checksum !== payload.checksum) discrepancies.push(`${payload.id}: the ledger checksum differs from the planned definition`);
    const m = migrations.find((x) => x.definition.id === payload.id);
    if (!m) discrepancies.push(`${payload.id}: no longer declared`);
    else if (m.checksum !== row.checksum) discrepancies.push(`${payload.id}: definition changed since it was applied`);
    else checked.push(m);
  }
  discrepancies.push(...(await service().postconditions(checked, ctx.tenantId)));
  return { ok: discrepancies.length === 0, discrepancies };
}

/**
 * The `migration` data-operation domain: plan() runs the selected migrations over an in-memory copy
 * of the touched collections (no writes) and reports counts, risk and samples; apply() runs one
 * migration inside the engine's transaction, writes the difference and the ledger row (unique per
 * tenant and migration); verify() checks the ledger and the postconditions.
 */
export function migrationDomain(deps: MigrationDeps): DataDomainDefinition<MigrationInput> {
  return {
    id: DOMAIN_ID,
    auditDomain: 'migration',
    modes: ['merge'],
    defaultMode: 'merge',
    inlineThreshold: Infinity,
    transactional: true,
    validate: (input) => validate(deps, input),
    snapshot: (input, ctx) => snapshot(deps, input, ctx),
    plan: (input, _mode, ctx) => plan(deps, input, ctx),
    apply: (operation, ctx) => apply(deps, operation, ctx),
    verify: (stored, ctx) => verify(deps, stored, ctx),
  };
}

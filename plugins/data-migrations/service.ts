import type { z } from 'zod';
import type { ledgerEntrySchema } from './routes.js';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Transaction } from 'sequelize';
import { type CacheService, type Logger, ModelService } from '../../kernel/sdk.js';
import type { DataMigrationDeclaration } from './public.js';
import type { Risk } from '../data-ops/public.js';
import type { CollectionsService, EntriesService, EntryChange } from '../content/public.js';
import { load, type LoadedMigration } from './definition.js';
import { DataMigrationLedgerRow } from './models/ledger-row.js';
import { collectionsOf, loadState, runMigration, touched } from './simulate.js';

export interface DeclarationError {
  source: string;
  message: string;
}

/** A ledger entry as its route answers it: the route's response schema (routes.ts) is the one definition. */
export type LedgerEntry = z.output<typeof ledgerEntrySchema>;

/** Files bigger than this are reported, not read. */
const MAX_FILE_BYTES = 1024 * 1024;

export interface DataMigrationsDeps {
  collections: CollectionsService;
  entries: EntriesService;
  cache: CacheService;
  logger: Logger;
  /** The plugins' declarations (registry `dataMigrations`) with the plugin that added each. */
  declarations: () => Array<{ item: DataMigrationDeclaration; owner: string }>;
  /** <data>/migrations */
  folder: string;
}

/**
 * The declared migrations (plugins and files, read on every call so a new file needs no restart; a
 * bad one is reported, never thrown), the ledger, status, history and the whole-ledger verify.
 */
export class DataMigrationsService extends ModelService({ DataMigrationLedgerRow })<DataMigrationsDeps> {
  /** The content plugin's entries service (list caches, revisions and events of migrated entries). */
  get entries(): EntriesService {
    return this.deps.entries;
  }

  async declared(): Promise<{ migrations: LoadedMigration[]; errors: DeclarationError[] }> {
    const byId = new Map<string, LoadedMigration>();
    const errors: DeclarationError[] = [];
    const add = (input: unknown, source: string) => {
      const loaded = load(input, source);
      if (!loaded.ok) return void errors.push({ source, message: loaded.message });
      const id = loaded.migration.definition.id;
      const other = byId.get(id);
      if (other)
        return void errors.push({ source, message: `migration id '${id}' is already declared by ${other.source}; this one is ignored` });
      byId.set(id, loaded.migration);
    };
    for (const { item, owner } of this.deps.declarations()) add(item, `plugin:${owner}`);
    let files: string[] = [];
    try {
      files = (await readdir(this.deps.folder)).filter((f) => f.endsWith('.json')).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        errors.push({ source: 'file:', message: `cannot list ${this.deps.folder}: ${(err as Error).message}` });
    }
    for (const file of files) {
      const source = `file:${file}`;
      try {
        const text = await readFile(join(this.deps.folder, file), 'utf8');
        if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
          errors.push({ source, message: `larger than ${MAX_FILE_BYTES} bytes` });
          continue;
        }
        add(JSON.parse(text), source);
      } catch (err) {
        errors.push({ source, message: err instanceof SyntaxError ? `not valid JSON: ${err.message}` : (err as Error).message });
      }
    }
    const migrations = [...byId.values()].sort((a, b) =>
      a.definition.id < b.definition.id ? -1 : a.definition.id > b.definition.id ? 1 : 0,
    );
    return { migrations, errors };
  }

  async ledger(tenantId: string, transaction?: Transaction): Promise<LedgerEntry[]> {
    const rows = await this.models.DataMigrationLedgerRow.findAll({
      where: { tenant_id: tenantId },
      order: [
        ['applied_at', 'ASC'],
        ['migration_id', 'ASC'],
      ],
      transaction,
    });
    return rows.map((r) => ({
      id: r.migration_id,
      planId: r.plan_id,
      planHash: r.plan_hash,
      checksum: r.checksum,
      source: r.source,
      actor: r.actor,
      counts: JSON.parse(r.counts) as LedgerEntry['counts'],
      appliedAt: new Date(Number(r.applied_at)).toISOString(),
    }));
  }

  async record(
    tenantId: string,
    m: LoadedMigration,
    plan: { planId: string; planHash: string },
    actor: string | null,
    counts: LedgerEntry['counts'],
    transaction: Transaction,
  ): Promise<void> {
    await this.models.DataMigrationLedgerRow.create(
      {
        tenant_id: tenantId,
        migration_id: m.definition.id,
        plan_id: plan.planId,
        plan_hash: plan.planHash,
        checksum: m.checksum,
        source: m.source,
        actor,
        counts: JSON.stringify(counts),
        applied_at: Date.now(),
      },
      { transaction },
    );
  }

  /** Definitions of applied migrations that changed (or vanished) since they ran. */
  private changedDefinitions(migrations: LoadedMigration[], ledger: LedgerEntry[]): string[] {
    const byId = new Map(migrations.map((m) => [m.definition.id, m]));
    const out: string[] = [];
    for (const row of ledger) {
      const now = byId.get(row.id);
      if (!now) out.push(`${row.id}: applied, but no longer declared`);
      else if (now.checksum !== row.checksum) {
        out.push(
          `${row.id}: definition changed since it was applied (ledger checksum ${row.checksum.slice(0, 12)}, now ${now.checksum.slice(0, 12)}); add a new migration instead of editing an applied one`,
        );
      }
    }
    return out;
  }

  async status(tenantId: string) {
    const { migrations, errors } = await this.declared();
    const ledger = await this.ledger(tenantId);
    const applied = new Set(ledger.map((r) => r.id));
    return {
      pending: migrations
        .filter((m) => !applied.has(m.definition.id))
        .map((m) => ({
          id: m.definition.id,
          risk: m.risk as Risk,
          description: m.definition.description,
          source: m.source,
        })),
      applied: ledger.map((r) => ({ id: r.id, planHash: r.planHash, appliedAt: r.appliedAt })),
      errors,
      discrepancies: this.changedDefinitions(migrations, ledger),
    };
  }

  async history(tenantId: string) {
    return { history: (await this.ledger(tenantId)).reverse() };
  }

  /**
   * Postconditions: running the migration again over today's data changes nothing (a rename leaves the
   * old field empty, a move leaves no matching entry behind...). Checked per migration, in id order.
   */
  async postconditions(migrations: LoadedMigration[], tenantId: string): Promise<string[]> {
    const out: string[] = [];
    for (const m of migrations) {
      const { state, missing } = await loadState(this.deps.collections, collectionsOf(m.definition), tenantId);
      if (missing.length) {
        out.push(`${m.definition.id}: collection ${missing.join(', ')} no longer exists`);
        continue;
      }
      const result = runMigration(m.definition, state);
      const n = touched(result);
      if (n > 0)
        out.push(
          `${m.definition.id}: postcondition failed: ${n} entr${n === 1 ? 'y' : 'ies'} would still change (${result.samples[0] ?? ''})`,
        );
    }
    return out;
  }

  /** POST /api/migrations/verify: ledger checksums against the definitions, and the applied migrations' postconditions. */
  async verify(tenantId: string, ids?: string[]): Promise<{ ok: boolean; discrepancies: string[] }> {
    const { migrations } = await this.declared();
    let ledger = await this.ledger(tenantId);
    if (ids?.length) ledger = ledger.filter((r) => ids.includes(r.id));
    const discrepancies = this.changedDefinitions(migrations, ledger);
    const applied = new Set(ledger.map((r) => r.id));
    const changed = new Set(discrepancies.map((d) => d.slice(0, d.indexOf(':'))));
    discrepancies.push(
      ...(await this.postconditions(
        migrations.filter((m) => applied.has(m.definition.id) && !changed.has(m.definition.id)),
        tenantId,
      )),
    );
    return { ok: discrepancies.length === 0, discrepancies };
  }

  /**
   * After a committed apply: the collections' cached lists go, then the entry events of the changed and
   * moved entries are published (content's announceChanges: in chunks, N entries publish N events; a
   * failure is logged, the apply stands).
   */
  async afterApply(tenantId: string, collections: string[], actor: string | null, changes: EntryChange[]): Promise<void> {
    await this.invalidateLists(tenantId, collections);
    try {
      await this.deps.entries.announceChanges(tenantId, actor, changes);
    } catch (err) {
      this.deps.logger.warn({ err }, 'data migration applied, but its entry events could not be published');
    }
  }

  /** After a committed apply: the collections' cached lists go (content's list cache, by prefix, every instance). */
  async invalidateLists(tenantId: string, collections: string[]): Promise<void> {
    for (const name of collections) {
      try {
        await this.deps.entries.invalidateLists(tenantId, name);
      } catch (err) {
        this.deps.logger.warn({ err, collection: name }, 'data migration applied, but the collection list cache could not be invalidated');
      }
    }
  }
}

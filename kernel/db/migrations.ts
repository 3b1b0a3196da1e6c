import { createHash } from 'node:crypto';
import { DataTypes, QueryTypes, type QueryInterface, type Sequelize } from 'sequelize';
import type { UmzugStorage } from 'umzug';
import { BootError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DbLock } from './lock.js';
import { optimizeSqlite } from './sqlite-statistics.js';

export interface MigrationContext {
  sequelize: Sequelize;
  queryInterface: QueryInterface;
  DataTypes: typeof DataTypes;
}

export interface MigrationDefinition {
  /** Unique within its plugin; the kernel prefixes the plugin id (`content/0001-entries`). */
  name: string;
  up(ctx: MigrationContext): Promise<void>;
  down?(ctx: MigrationContext): Promise<void>;
  /**
   * For migrations built at run time from data (a collection's schema change): the checksum of that
   * data. Otherwise the checksum is taken from the code of up and down.
   */
  checksum?: string;
}

export function migrationChecksum(m: MigrationDefinition): string {
  if (m.checksum) return m.checksum;
  return createHash('sha256')
    .update(m.up.toString())
    .update('\0')
    .update(m.down?.toString() ?? '')
    .digest('hex');
}

interface LedgerRow {
  name: string;
  checksum: string;
  executed_at?: string;
}

/** Where one migration stands against the ledger (`cms migrate status`). */
export interface MigrationState {
  name: string;
  /** The plugin id (the part before `/`), or `kernel`. */
  owner: string;
  /** applied: in the ledger with the same checksum; pending: not run yet; changed: its code differs from what ran (a boot stops). */
  state: 'applied' | 'pending' | 'changed';
  executedAt: string | null;
}

export interface MigrationStatus {
  migrations: MigrationState[];
  /**
   * Ledger rows no declared migration names: schema changes of collections (run from data, at run time), or
   * migrations of plugins not enabled now. Never run or undone by `cms migrate`.
   */
  recordedOnly: Array<{ name: string; executedAt: string | null }>;
}

/** The owner of a migration from its name: `content/0001-entries` belongs to content; the kernel's have no prefix. */
export const ownerOf = (name: string) => (name.includes('/') ? name.slice(0, name.indexOf('/')) : 'kernel');

/**
 * Versioned, checksummed schema migrations run with umzug. The ledger (cms_migrations) records each
 * migration's name and checksum; a migration edited after it ran stops the boot. A database lock
 * makes two instances starting together run each migration exactly once.
 */
export class MigrationRunner {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly lock: DbLock,
    private readonly logger: Logger,
  ) {}

  private async ensureLedger(): Promise<void> {
    await this.sequelize.query(
      'CREATE TABLE IF NOT EXISTS cms_migrations (name VARCHAR(191) NOT NULL PRIMARY KEY, checksum CHAR(64) NOT NULL, executed_at VARCHAR(32) NOT NULL)',
    );
  }

  async ledger(): Promise<LedgerRow[]> {
    await this.ensureLedger();
    return this.sequelize.query<LedgerRow>('SELECT name, checksum FROM cms_migrations ORDER BY executed_at, name', {
      type: QueryTypes.SELECT,
    });
  }

  /**
   * Where each declared migration stands, read from the ledger without running anything, taking the lock or
   * creating the ledger (an empty database has everything pending).
   */
  async status(migrations: MigrationDefinition[]): Promise<MigrationStatus> {
    const rows = (await this.sequelize.getQueryInterface().tableExists('cms_migrations'))
      ? await this.sequelize.query<LedgerRow>('SELECT name, checksum, executed_at FROM cms_migrations', { type: QueryTypes.SELECT })
      : [];
    const byName = new Map(rows.map((r) => [r.name, r]));
    const declared = new Set(migrations.map((m) => m.name));
    return {
      migrations: migrations.map((m) => {
        const row = byName.get(m.name);
        const state = !row ? 'pending' : row.checksum === migrationChecksum(m) ? 'applied' : 'changed';
        return { name: m.name, owner: ownerOf(m.name), state, executedAt: row?.executed_at ?? null };
      }),
      recordedOnly: rows
        .filter((r) => !declared.has(r.name))
        .map((r) => ({ name: r.name, executedAt: r.executed_at ?? null }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  }

  async run(migrations: MigrationDefinition[]): Promise<string[]> {
    const names = new Set<string>();
    for (const m of migrations) {
      if (names.has(m.name)) throw new BootError(`Migration '${m.name}' is declared twice`);
      names.add(m.name);
    }
    return this.lock.withLock('migrations', () => this.runLocked(migrations), { ttlMs: 10 * 60000, waitMs: 10 * 60000 });
  }

  private async runLocked(migrations: MigrationDefinition[]): Promise<string[]> {
    const checksums = new Map(migrations.map((m) => [m.name, migrationChecksum(m)]));
    const ledger = await this.ledger();
    for (const row of ledger) {
      const now = checksums.get(row.name);
      if (now !== undefined && now !== row.checksum) {
        throw new BootError(
          `Migration '${row.name}' was changed after it ran (ledger checksum ${row.checksum.slice(0, 12)}…, code ${now.slice(0, 12)}…); add a new migration instead`,
        );
      }
    }
    // The usual restart: everything ran already, so umzug (a few MB resident) is never loaded.
    const applied = new Set(ledger.map((r) => r.name));
    if (migrations.every((m) => applied.has(m.name))) return [];
    const { Umzug } = await import('umzug');
    const sequelize = this.sequelize;
    const storage: UmzugStorage = {
      async executed() {
        const rows = await sequelize.query<{ name: string }>('SELECT name FROM cms_migrations', { type: QueryTypes.SELECT });
        return rows.map((r) => r.name);
      },
      async logMigration({ name }) {
        await sequelize.query('INSERT INTO cms_migrations (name, checksum, executed_at) VALUES (?, ?, ?)', {
          replacements: [name, checksums.get(name)!, new Date().toISOString()],
        });
      },
      async unlogMigration({ name }) {
        await sequelize.query('DELETE FROM cms_migrations WHERE name = ?', { replacements: [name] });
      },
    };
    const context: MigrationContext = { sequelize, queryInterface: sequelize.getQueryInterface(), DataTypes };
    const umzug = new Umzug<MigrationContext>({
      migrations: migrations.map((m) => ({
        name: m.name,
        up: ({ context: c }) => m.up(c),
        down: m.down ? ({ context: c }) => m.down!(c) : undefined,
      })),
      context,
      storage,
      logger: undefined,
    });
    const done = await umzug.up();
    for (const m of done) this.logger.info({ migration: m.name }, 'migration applied');
    // New tables and indexes get SQLite's planner statistics (sqlite-statistics.ts).
    if (done.length) await optimizeSqlite(sequelize);
    return done.map((m) => m.name);
  }
}

import { rmSync } from 'node:fs';
import type { Sequelize } from 'sequelize';
import { loadConfig } from '../../kernel/config.js';
import { createSequelize } from '../../kernel/db/database.js';
import { KERNEL_MIGRATIONS } from '../../kernel/db/kernel-migrations.js';
import { DbLock } from '../../kernel/db/lock.js';
import { MigrationRunner } from '../../kernel/db/migrations.js';
import { createLogger } from '../../kernel/logger.js';
import { tempDir } from './kernel.js';
import { createMariaDbDatabase, type DbVariant } from './services.js';

export interface TwoConnections {
  /** Two Sequelize instances (separate connections, separate lock owners) on one fresh database. */
  dbA: Sequelize;
  dbB: Sequelize;
  close(): Promise<void>;
}

/**
 * What two kernel instances sharing one database have: a fresh SQLite file or MariaDB database with
 * the kernel's migrations applied, opened twice.
 */
export async function openTwoConnections(variant: DbVariant, prefix: string): Promise<TwoConnections> {
  const logger = createLogger('silent');
  const dataDir = tempDir(`${prefix}-`);
  let drop: (() => Promise<void>) | undefined;
  let url: string | undefined;
  if (variant.name === 'mariadb') {
    const created = await createMariaDbDatabase();
    url = created.url;
    drop = created.drop;
  }
  const config = loadConfig({
    ignoreFile: true,
    env: {},
    overrides: { dataDir, logLevel: 'silent', db: url ? { url } : { type: 'sqlite', storage: 'cms.sqlite' } },
  });
  const dbA = createSequelize(config, logger);
  const dbB = createSequelize(config, logger);
  await new MigrationRunner(dbA, new DbLock(dbA), logger).run(KERNEL_MIGRATIONS);
  return {
    dbA,
    dbB,
    async close() {
      await dbA.close();
      await dbB.close();
      if (drop) await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

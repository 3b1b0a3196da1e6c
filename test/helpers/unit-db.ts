import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Sequelize } from 'sequelize';
import { loadConfig, type CmsConfig, type ConfigInput } from '../../kernel/config.js';
import { createSequelize } from '../../kernel/db/database.js';
import { KERNEL_MIGRATIONS } from '../../kernel/db/kernel-migrations.js';
import { DbLock } from '../../kernel/db/lock.js';
import { MigrationRunner, type MigrationDefinition } from '../../kernel/db/migrations.js';
import { ModelRegistry, type ModelMap, type PluginModel } from '../../kernel/db/models.js';
import { createLogger, type Logger } from '../../kernel/logger.js';

/**
 * A real SQLite database (a file in a temporary folder) opened through the kernel's database module,
 * with the kernel's own tables migrated: for unit tests of kernel services (audit, jobs, locks,
 * idempotency) without booting a kernel or a server.
 */
export interface UnitDb {
  sequelize: Sequelize;
  lock: DbLock;
  migrator: MigrationRunner;
  logger: Logger;
  config: CmsConfig;
  dataDir: string;
  /** The plugins' model classes bound to this database (as the container's `models`). */
  models: ModelMap;
  close(): Promise<void>;
}

/**
 * Plugins' models and migrations to set up too, as the loader would: each plugin's models are
 * initialised on this database and associated, its migrations run after the kernel's (names prefixed
 * with the plugin id, as the loader does).
 */
export interface UnitPlugin {
  id: string;
  models?: PluginModel[];
  migrations?: MigrationDefinition[];
}

export async function openUnitDb(options: { migrate?: boolean; db?: ConfigInput['db']; plugins?: UnitPlugin[] } = {}): Promise<UnitDb> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-unit-'));
  const config = loadConfig({
    ignoreFile: true,
    env: {},
    overrides: {
      env: 'test',
      dataDir,
      logLevel: 'silent',
      db: { type: 'sqlite', storage: 'unit.sqlite', ...(options.db ?? {}) },
    } as ConfigInput,
  });
  const logger = createLogger('silent');
  const sequelize = createSequelize(config, logger);
  const lock = new DbLock(sequelize);
  const migrator = new MigrationRunner(sequelize, lock, logger);
  if (options.migrate !== false) await migrator.run(KERNEL_MIGRATIONS);
  const registry = new ModelRegistry(sequelize);
  for (const plugin of options.plugins ?? []) for (const model of plugin.models ?? []) registry.add(model, plugin.id);
  registry.associateAll();
  const pluginMigrations = (options.plugins ?? []).flatMap((p) =>
    (p.migrations ?? []).map((m) => ({ ...m, name: m.name.startsWith(`${p.id}/`) ? m.name : `${p.id}/${m.name}` })),
  );
  if (pluginMigrations.length) await migrator.run(pluginMigrations);
  let closed = false;
  return {
    sequelize,
    lock,
    migrator,
    logger,
    config,
    dataDir,
    models: registry.models,
    async close() {
      if (closed) return;
      closed = true;
      await sequelize.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The data-migrations plugin's public surface: the declaration format (for plugins adding to the
 * `dataMigrations` registry and for files in <data>/migrations/) and its container key.
 */
import type { DataMigrationsService } from './service.js';

export type { MigrationDefinition, MigrationStep } from './definition.js';
export type { DataMigrationDeclaration } from '../../kernel/sdk.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    dataMigrations: DataMigrationsService;
  }
}

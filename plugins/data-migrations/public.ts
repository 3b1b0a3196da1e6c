/**
 * The data-migrations plugin's public surface: the declaration format (the contract of the
 * `dataMigrations` extension point it reads, also the format of files in <data>/migrations/) and its
 * container key.
 */
import type { DataMigrationsService } from './service.js';

export type { MigrationDefinition, MigrationStep } from './definition.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    dataMigrations: DataMigrationsService;
  }
}

/**
 * A data migration a plugin declares (registry `dataMigrations`, manifest `provides.dataMigrations`):
 * an id such as `2026-11-25-rename-title` (runs once per tenant, in id order), a description and the
 * steps. The step format is the data-migrations plugin's (plugins/data-migrations/definition.ts); it
 * validates them and reports a bad declaration in GET /api/migrations/status instead of running it.
 */
export interface DataMigrationDeclaration {
  id: string;
  description: string;
  /** Default collection of the steps that name none. */
  collection?: string;
  steps: Array<Record<string, unknown>>;
}

declare module '../../kernel/sdk.js' {
  interface ExtensionPoints {
    dataMigrations: DataMigrationDeclaration;
  }
}

/**
 * The config-sync plugin's public surface (type-only): its container key `configSync`, so
 * `scope.configSync` is typed in route handlers. It registers the `config` domain into `dataDomains`.
 */
import type { ConfigSyncService } from './config-sync-service.js';

export type { ConfigSyncService } from './config-sync-service.js';
export type { ResourceType } from './resources.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    configSync: ConfigSyncService;
  }
}

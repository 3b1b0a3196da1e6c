/**
 * The importers plugin's public surface (type-only): what other plugins and typed route handlers may
 * depend on. Declares its container key, so `scope.importers` is typed in handlers.
 */
import type { ImportersService } from './importers-service.js';

export type { ImportersService } from './importers-service.js';
export type { EntityResult, SkipReason } from './runner.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    importers: ImportersService;
  }
}

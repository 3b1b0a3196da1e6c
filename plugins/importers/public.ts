/**
 * The importers plugin's public surface (type-only): what other plugins and typed route handlers may
 * depend on. Declares its container key, so `scope.importers` is typed in handlers, and the contract
 * of the `importFormats` extension point it reads (format-contract.ts).
 */
import type { ImportFormat } from './format-contract.js';
import type { ImportersService } from './importers-service.js';

export type { ImportersService } from './importers-service.js';
export type { EntityResult, SkipReason } from './runner.js';
export type {
  ImportedEntity,
  ImportFieldKind,
  ImportFormat,
  ImportParseInput,
  ImportParseSummary,
  ImportProfile,
  ImportSample,
} from './format-contract.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    importers: ImportersService;
  }
}

declare module '../../kernel/sdk.js' {
  interface ExtensionPoints {
    importFormats: ImportFormat;
  }
}

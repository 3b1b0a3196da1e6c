/**
 * The update-check plugin's public surface: its container key (type-only; setup generates the signing
 * key through updateCheck.ensureSigningKey() when this plugin is enabled), and the signing-key helpers.
 */
import type { UpdateCheckService } from './service.js';

export type { UpdateCheckService, UpdateStatus, DiagnoseStep } from './service.js';
export { ensureSigningKey, installationIdFrom, readSigningKey, signingKeyPath } from './signing-key.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    updateCheck: UpdateCheckService;
  }
}

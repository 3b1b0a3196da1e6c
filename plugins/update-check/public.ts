/**
 * The update-check plugin's public surface: its container key (type-only), and the signing-key helpers
 * the setup plugin uses when it writes the private config.
 */
import type { UpdateCheckService } from './service.js';

export type { UpdateCheckService, UpdateStatus, DiagnoseStep } from './service.js';
export { ensureSigningKey, installationIdFrom, readSigningKey, signingKeyPath } from './signing-key.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    updateCheck: UpdateCheckService;
  }
}

/**
 * The backups plugin's public surface: its container keys (type-only), so `scope.backups` is typed.
 */
import type { BackupsService } from './backups-service.js';
import type { backupDomain } from './domain.js';
import type { Maintenance } from './maintenance.js';

export type { BackupManifest, FileEntry } from './format.js';
export { MAINTENANCE_EVENT } from './maintenance.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    backups: BackupsService;
    backupsMaintenance: Maintenance;
    backupsDomain: ReturnType<typeof backupDomain>;
  }
}

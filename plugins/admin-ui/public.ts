/** The admin-ui plugin's public surface (type-only): its container key, so `scope.adminUi` is typed in handlers. */
import type { AdminUi } from './admin-ui.js';

export type { AdminUi } from './admin-ui.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    adminUi: AdminUi;
  }
}

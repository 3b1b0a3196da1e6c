/**
 * The dashboard plugin's public surface (type-only): declares its container keys, so
 * `scope.dashboardState`, `scope.dashboardLicense` and the others are typed in route handlers.
 */
import type { Registry as PromRegistry } from 'prom-client';
import type { DashboardState } from './dashboard-state.js';
import type { LicenseService } from './license-service.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    dashboardOptions: { lowStockThreshold: number };
    dashboardState: DashboardState;
    dashboardLicense: LicenseService;
    /** The Prometheus registry, set once the dashboard boots. */
    dashboardMetrics: { registry: PromRegistry | null };
  }
}

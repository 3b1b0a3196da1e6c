/**
 * The dashboard plugin's public surface (type-only): declares its container keys, so
 * `scope.dashboardState`, `scope.dashboardLicense` and the others are typed in route handlers.
 */
import type { Registry as PromRegistry } from 'prom-client';
import type { DashboardState } from './dashboard-state.js';
import type { LicenseService } from './license-service.js';
import type { TimeSeriesRecorder } from './time-series-recorder.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    dashboardOptions: { lowStockThreshold: number };
    dashboardState: DashboardState;
    dashboardLicense: LicenseService;
    /** The Prometheus registry, set once the dashboard boots. */
    dashboardMetrics: { registry: PromRegistry | null };
    /** The figures over time (time-series-recorder.ts): counted in memory, flushed to dashboard_metric_points. */
    dashboardTimeSeries: TimeSeriesRecorder;
  }
}

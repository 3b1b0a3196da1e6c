/**
 * The dashboard plugin's public surface (type-only): declares its container keys, so
 * `scope.dashboardState`, `scope.dashboardLicense` and the others are typed in route handlers, and the
 * contract of the `widgets` extension point it reads.
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

/** Dashboard widget: the folder's widget.json plus its data endpoint and permission. */
export interface WidgetDefinition {
  id: string;
  name: string;
  license: 'freemium' | 'paid';
  endpoint: string;
  permission: string;
  component: string;
  description?: string;
  /** monitoring | logs | content | static (the widget folders use these). */
  category?: string;
  /** An icon name for the admin UI. */
  icon?: string;
  version?: string;
  /** Grid size the admin UI gives a newly added widget. */
  defaultSize?: { w: number; h: number };
}

declare module '../../kernel/sdk.js' {
  interface ExtensionPoints {
    widgets: WidgetDefinition;
  }
}

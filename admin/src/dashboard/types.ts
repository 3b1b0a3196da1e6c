import type { ApiSchemas, RouteResponse } from '../lib/remote';

export type LicenseState = ApiSchemas['LicenseState'];
/** A widget the dashboard may show, as GET /api/dashboard/widgets lists it. */
export type WidgetInfo = RouteResponse<'GET /api/dashboard/widgets'>[number];

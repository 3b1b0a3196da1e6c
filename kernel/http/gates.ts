import type { Context } from 'koa';
import type { RegisteredRoute } from './route-table.js';

/**
 * The gates that close the API for a while, and that a route may declare it stays open through
 * (`openDuring` on the route, instead of a path list in each gate):
 * - `boot`: before READY and from the moment shutdown starts (the kernel's boot gate; 503);
 * - `setup`: until setup completes (the setup plugin redirects everything else to /setup);
 * - `maintenance`: maintenance mode (the maintenance plugin; administrators pass anyway);
 * - `restore`: a restore in progress (the backups plugin; installation administrators pass anyway).
 */
export const ROUTE_GATES = ['boot', 'setup', 'maintenance', 'restore'] as const;
export type RouteGate = (typeof ROUTE_GATES)[number];

/** Whether a route stays open while `gate` is closed. */
export function routeOpenDuring(route: Pick<RegisteredRoute, 'openDuring'> | undefined, gate: RouteGate): boolean {
  return route?.openDuring?.includes(gate) === true;
}

/**
 * Whether the request's matched route (ctx.state.route, set by the kernel before plugin middleware)
 * stays open while `gate` is closed. A request that matches no route, or only another method's, is not.
 */
export function isOpenDuring(ctx: Context, gate: RouteGate): boolean {
  return routeOpenDuring(ctx.state.route as RegisteredRoute | undefined, gate);
}

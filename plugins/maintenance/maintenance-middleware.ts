import type { Context, Next } from 'koa';
import { INSTALLATION_TENANT, isAdmin, isInstallationAdmin, isOpenDuring, type Identity, type Logger } from '../../kernel/sdk.js';
import { MaintenanceModeError } from './errors.js';
import type { MaintenanceFlags } from './maintenance-flags.js';
import { maintenancePage } from './maintenance-page.js';
import type { MaintenanceGate } from './public.js';

/**
 * What stays reachable for everyone while maintenance mode is on is declared on the routes
 * (`openDuring: ['maintenance']`, API-DECISIONS "System settings"): the health probes, `GET /api/setup/status`,
 * `GET /api/theme/public` (the spec: "always HTTP 200"; the spec wins over the decision's list, which leaves
 * it out), sign-in (`POST /api/user/login`, `POST /api/auth/2fa/verify`, and the other ways to sign in:
 * passkeys, OpenID Connect, magic link), `POST /api/user/logout` and `GET /api/user/me`; outside the API,
 * the admin UI's files and its sign-in pages (/admin, /admin/..., /login, /magic-link): an administrator
 * has to reach the sign-in form. Everything else answers 503, WebSocket upgrades included, unless the
 * caller is an administrator.
 */
/**
 * Whether maintenance refuses the identity: the installation tenant's switch covers every tenant (only
 * the installation's administrators pass), a tenant's own switch covers that tenant (its admins pass).
 */
export function refusedBy(flags: MaintenanceFlags, identity: Identity): boolean {
  if (flags.isOn(INSTALLATION_TENANT) && !isInstallationAdmin(identity)) return true;
  return flags.isOn(identity.tenantId) && !isAdmin(identity);
}

/** The container key `maintenance` (public.ts): the same decision for WebSocket upgrades. */
export function maintenanceGate(
  flags: () => MaintenanceFlags | null,
  retryAfterSeconds: number,
  logger: () => Logger | null,
): MaintenanceGate {
  const gate: MaintenanceGate = {
    refuses(identity) {
      const current = flags();
      return current !== null && refusedBy(current, identity);
    },
    assertOpen(identity, via) {
      if (!gate.refuses(identity)) return;
      logger()?.info({ code: 'MAINTENANCE_MODE', status: 503, via, tenantId: identity.tenantId }, 'request refused: maintenance mode');
      throw new MaintenanceModeError(retryAfterSeconds);
    },
  };
  return gate;
}

/**
 * afterIdentity middleware: 503 MAINTENANCE_MODE (the error envelope, JSON) or the maintenance page
 * (browsers) for those maintenance refuses. The answer is written here, not thrown: a refusal is the
 * switch working, logged at info in one line without a stack (an error thrown as 503 is logged as a failure).
 */
export function maintenanceMiddleware(flags: () => MaintenanceFlags | null, retryAfterSeconds: number, logger: Logger) {
  // Not async: a request that passes (maintenance off) makes no promise of its own.
  return function maintenanceMode(ctx: Context, next: Next): Promise<void> {
    const identity = ctx.state.identity as Identity | undefined;
    const current = flags();
    if (!current || !identity || !refusedBy(current, identity) || isOpenDuring(ctx, 'maintenance')) return next();
    refuse(ctx, identity, current);
    return Promise.resolve();
  };

  function refuse(ctx: Context, identity: Identity, current: MaintenanceFlags): void {
    const log = (ctx.state.logger as Logger | undefined) ?? logger;
    log.info(
      { code: 'MAINTENANCE_MODE', status: 503, method: ctx.method, path: ctx.path, tenantId: identity.tenantId },
      'request refused: maintenance mode',
    );
    ctx.status = 503;
    ctx.set('Retry-After', String(retryAfterSeconds));
    ctx.set('Cache-Control', 'no-store');
    // A browser navigating here asks for HTML first; API clients (JSON, */* or no Accept) get the error body.
    if (ctx.accepts('json', 'html') !== 'html') {
      const err = new MaintenanceModeError(retryAfterSeconds);
      ctx.body = { success: false, error: err.code, message: err.message, ...err.extra };
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    const tenant = current.isOn(identity.tenantId) ? identity.tenantId : INSTALLATION_TENANT;
    ctx.body = maintenancePage(current.siteName(identity.tenantId), retryAfterSeconds, current.message(tenant));
  }
}

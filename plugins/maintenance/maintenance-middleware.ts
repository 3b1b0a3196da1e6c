import type { Context, Next } from 'koa';
import { isAdmin, type Identity } from '../../kernel/http/identity.js';
import { MaintenanceModeError } from './errors.js';
import type { MaintenanceFlags } from './maintenance-flags.js';
import { maintenancePage } from './maintenance-page.js';

/**
 * What stays reachable for everyone while maintenance mode is on (paths after the kernel's /api/v1
 * rewrite): health probes; signing in and out (password, 2FA step, passkeys, OpenID, magic link) and
 * `GET /api/user/me`, so an administrator can sign in through the admin UI; the public theme (sign-in
 * page branding); the admin UI's files and the sign-in pages it serves (/admin, /admin/..., /login,
 * /magic-link); setup (/setup, /setup/..., /api/setup/...). Everything else answers 503 unless the
 * caller is an administrator.
 */
export const MAINTENANCE_EXEMPT =
  /^\/(?:api\/(?:health(?:\/ready)?|system\/health|user\/(?:login|logout|me|magic-link|magic-link\/verify)|auth\/2fa\/verify|auth\/passkeys\/login\/(?:options|verify)|auth\/oidc\/[^/]+\/(?:start|callback)|theme\/public|setup(?:\/.*)?)|admin(?:\/.*)?|login|magic-link|setup(?:\/.*)?)\/?$/i;

/** afterIdentity middleware: 503 MAINTENANCE_MODE (JSON) or the maintenance page (browsers) for non-administrators. */
export function maintenanceMiddleware(flags: () => MaintenanceFlags | null, retryAfterSeconds: number) {
  return async function maintenanceMode(ctx: Context, next: Next): Promise<void> {
    const identity = ctx.state.identity as Identity | undefined;
    const current = flags();
    if (!current || !identity || !current.isOn(identity.tenantId) || isAdmin(identity) || MAINTENANCE_EXEMPT.test(ctx.path)) return next();
    // A browser navigating here asks for HTML first; API clients (JSON, */* or no Accept) get the error body.
    if (ctx.accepts('json', 'html') !== 'html') throw new MaintenanceModeError(retryAfterSeconds);
    ctx.status = 503;
    ctx.set('Retry-After', String(retryAfterSeconds));
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = maintenancePage(current.siteName(identity.tenantId), retryAfterSeconds);
  };
}

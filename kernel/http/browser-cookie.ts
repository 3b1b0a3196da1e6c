import type { Context } from 'koa';

/**
 * The cookies the CMS sets in browsers are all httpOnly and SameSite=Lax, Secure over HTTPS, and replace
 * any earlier value of the same name (the session, the pending 2FA sign-in, device and challenge cookies).
 * `path` narrows where the browser sends it (default `/`).
 */
export function setBrowserCookie(ctx: Context, name: string, value: string, expiresAt: number, path = '/'): void {
  ctx.cookies.set(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    path,
    secure: ctx.secure,
    expires: new Date(expiresAt),
    overwrite: true,
  });
}

/** Removes a cookie set with setBrowserCookie (same name and path). */
export function clearBrowserCookie(ctx: Context, name: string, path = '/'): void {
  ctx.cookies.set(name, null, { httpOnly: true, sameSite: 'lax', path, overwrite: true });
}

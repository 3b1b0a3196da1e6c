import type { Context } from 'koa';
import { NotFoundError } from '../../kernel/sdk.js';
import type { UiBuild } from './ui-build.js';

/**
 * Headers of every HTML page of the app: only its own scripts, no framing of the app; it may frame itself and the
 * sites of the collections' live previews (`frames`: origins such as https://www.example.org).
 */
const csp = (frames: readonly string[]) =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self' data:",
    `frame-src ${["'self'", ...frames].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');

/** An origin fit for a CSP source list (scheme, host, optional port): anything else is left out. */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Admin UI not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem}code{background:#eee;padding:.1rem .3rem}</style></head>
<body><h1>The admin UI has not been built</h1>
<p>This instance is running, but the admin UI's files are missing. Run <code>npm run build</code> (part of <code>npm ci</code>) and restart.</p>
<p>The REST API works without it: see <a href="/api/openapi.json">/api/openapi.json</a>.</p></body></html>`;

/**
 * The container key `adminUi`: serves the build. The setup plugin asks it for the wizard page when it
 * is registered (`page('setup')`), and falls back to its own plain page otherwise.
 */
export class AdminUi {
  constructor(
    private readonly build: () => UiBuild | null,
    /** The origins pages may frame (the collections' live preview sites). */
    private readonly frames: () => string[] = () => [],
  ) {}

  get available(): boolean {
    return Boolean(this.build()?.available);
  }

  /** index.html of the app for /setup, with asset URLs under /setup/assets/ (open while setup is incomplete). */
  setupPage(): string | null {
    const build = this.build();
    return build?.available ? build.html({ title: 'Set up your CMS', assetPrefix: '/setup/assets/' }) : null;
  }

  sendPage(ctx: Context, title: string): void {
    const build = this.build();
    pageHeaders(
      ctx,
      this.frames().filter((o) => ORIGIN.test(o)),
    );
    if (!build?.available) {
      ctx.status = 503;
      ctx.type = 'html';
      ctx.body = NOT_BUILT;
      return;
    }
    ctx.type = 'html';
    ctx.body = build.html({ title: `${title} · CMS` });
  }

  /** A path under /admin/: a file of the build, else index.html (history routing); unknown assets 404. */
  sendPath(ctx: Context, path: string): void {
    if (path.startsWith('assets/')) return this.sendAsset(ctx, path);
    const build = this.build();
    const file = build?.available && path !== 'index.html' ? build.file(path) : null;
    if (file) return sendFile(ctx, file.body, file.type, 'public, max-age=3600');
    this.sendPage(ctx, 'Admin');
  }

  sendAsset(ctx: Context, path: string): void {
    const file = this.build()?.file(path);
    if (!file) throw new NotFoundError(`No asset '${path}' in the admin UI build`);
    sendFile(ctx, file.body, file.type, file.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
  }
}

export function pageHeaders(ctx: Context, frames: readonly string[] = []): void {
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('Content-Security-Policy', csp(frames));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
}

function sendFile(ctx: Context, body: Buffer, type: string, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = type;
  ctx.body = body;
}

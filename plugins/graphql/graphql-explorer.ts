import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { NotFoundError } from '../../kernel/errors.js';
import type { Identity } from '../../kernel/http/identity.js';
import type { ExplorerBuild } from './explorer-build.js';

/** GRAPHQL_EXPLORER: `auto` serves the explorer unless NODE_ENV (config `env`) is production. */
export type ExplorerMode = 'auto' | 'on' | 'off';

/**
 * The page's policy: its own script and stylesheet only; style elements only with this response's
 * nonce (GraphiQL's dialogs add one to lock scrolling; the page hands the nonce to them), no inline
 * script at all; fonts as the stylesheet's data: URLs; requests to this origin only; no framing, no
 * forms. The e2e test fails on any violation.
 */
export function explorerCsp(nonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const page = (title: string, text: string) =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><h1>${title}</h1><p>${text}</p></body></html>`;

/**
 * The container key `graphqlExplorer`: GraphiQL for signed-in browsers at GET /api/graphql
 * (Accept: text/html), its assets under /api/graphql/explorer/assets/.
 */
export class GraphqlExplorer {
  readonly enabled: boolean;

  constructor(
    mode: ExplorerMode,
    env: string,
    private readonly build: ExplorerBuild,
  ) {
    this.enabled = mode === 'on' || (mode === 'auto' && env !== 'production');
  }

  /** A browser navigation (it prefers HTML to JSON) while the explorer is on; everything else keeps the API answer. */
  wantsPage(ctx: Context): boolean {
    return this.enabled && ctx.accepts('json', 'html') === 'html';
  }

  /**
   * The explorer for a signed-in user (a session: what it runs is what the user may read). Anyone else:
   * a redirect to the admin sign-in page, which comes back here (`returnTo`), or a 401 page when the
   * admin UI is not there to sign in with.
   */
  sendPage(ctx: Context, identity: Identity, signInPage: boolean): void {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Vary', 'Accept, Cookie');
    const nonce = randomBytes(18).toString('base64');
    ctx.set('Content-Security-Policy', explorerCsp(nonce));
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    ctx.type = 'html';
    if (identity.kind !== 'user') {
      if (signInPage) return ctx.redirect(`/login?returnTo=${encodeURIComponent(ctx.originalUrl)}`);
      ctx.status = 401;
      ctx.body = page(
        'Sign in to use the GraphQL explorer',
        'The GraphQL explorer is for signed-in users. POST /api/graphql works with a token.',
      );
      return;
    }
    const html = this.build.page;
    if (html === null) {
      ctx.status = 503;
      ctx.body = page('The GraphQL explorer has not been built', 'Run npm run build (it builds dist/graphql-explorer) and restart.');
      return;
    }
    ctx.status = 200;
    ctx.body = html.replace('__CSP_NONCE__', nonce);
  }

  /** A hashed file of the build (cached for a year); 404 when the explorer is off or the file is unknown. */
  sendAsset(ctx: Context, name: string): void {
    const file = this.enabled ? this.build.asset(name) : null;
    if (!file) throw new NotFoundError(`No GraphQL explorer asset '${name}'`);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = file.type;
    ctx.body = file.body;
  }
}

import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { NotFoundError, hasPermission, type Identity } from '../../kernel/sdk.js';
import type { ExplorerBuild } from './explorer-build.js';

/** GRAPHQL_EXPLORER: `auto` (default) and `on` serve the explorer in every environment (NODE_ENV=production too); `off` does not. */
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

const escapeHtml = (v: string) =>
  v.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A small page (no script, no style: the explorer's CSP holds for it too); `body` is HTML made here, never request text. */
const page = (title: string, body: string) =>
  `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>
<body><main><h1>${title}</h1>${body}</main></body></html>`;

const API_CLIENTS =
  '<p>Scripts and apps do not need the explorer: they send <code>POST /api/graphql</code> with a JSON body ' +
  '<code>{"query": "…"}</code> and an <code>Authorization: Bearer …</code> header (an API key or a website token).</p>';

/**
 * The container key `graphqlExplorer`: GraphiQL for signed-in browsers at GET /api/graphql
 * (Accept: text/html), its assets under /api/graphql/explorer/assets/.
 */
export class GraphqlExplorer {
  readonly enabled: boolean;

  constructor(
    mode: ExplorerMode,
    private readonly build: ExplorerBuild,
  ) {
    this.enabled = mode !== 'off';
  }

  /** A browser navigation (it prefers HTML to JSON) while the explorer is on; everything else keeps the API answer. */
  wantsPage(ctx: Context): boolean {
    return this.enabled && ctx.accepts('json', 'html') === 'html';
  }

  /**
   * The explorer for a signed-in user who may read content (a session: what it runs is what the user
   * may read). Anyone else gets a small page saying how to sign in (401; 403 for a user without
   * content:read), with a link to the admin UI's sign-in, which comes back here (`returnTo`).
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
    const signIn = escapeHtml(`/login?returnTo=${encodeURIComponent(ctx.originalUrl)}`);
    if (identity.kind !== 'user') {
      ctx.status = 401;
      ctx.body = page(
        'Sign in to use the GraphQL explorer',
        (signInPage
          ? `<p>The GraphQL explorer is for signed-in users. <a href="${signIn}">Sign in</a> with your account of this site, and you come back here.</p>`
          : '<p>The GraphQL explorer is for signed-in users; this instance has no sign-in page (the admin UI is turned off).</p>') +
          API_CLIENTS,
      );
      return;
    }
    if (!hasPermission(identity, 'content:read')) {
      ctx.status = 403;
      ctx.body = page(
        'Your account cannot use the GraphQL explorer',
        '<p>The explorer runs queries as you, and your account is not allowed to read content (it lacks the content:read permission). ' +
          'Ask an administrator for a role that may read content' +
          (signInPage ? `, or <a href="${signIn}">sign in</a> with another account.</p>` : '.</p>') +
          API_CLIENTS,
      );
      return;
    }
    const html = this.build.page;
    if (html === null) {
      ctx.status = 503;
      ctx.body = page(
        'The GraphQL explorer has not been built',
        '<p>Run <code>npm run build</code> (it builds dist/graphql-explorer) and restart.</p>',
      );
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

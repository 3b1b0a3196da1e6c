import type { Context } from 'koa';
import { z } from 'zod';
import { defineRoute, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import { adminPageView, sendPluginPageModule, visiblePages } from './plugin-pages.js';

const tags = ['admin-ui'];
/** Static pages are not API calls: they do not count against the API rate limit. */
const common = { permission: 'public', tags, envelope: false, rateLimit: false as const, request: {} };

/** The top-level pages the mails and the OpenID sign-in link to; each serves the app, which routes itself. */
export const PUBLIC_PAGES: Array<{ path: string; title: string; openDuring?: RouteDefinition['openDuring'] }> = [
  { path: '/login', title: 'Sign in', openDuring: ['maintenance'] },
  { path: '/reset-password', title: 'Choose a new password' },
  { path: '/magic-link', title: 'Signing you in', openDuring: ['maintenance'] },
  { path: '/register', title: 'Create your account' },
];

const ui = (scope: RouteContext['scope']) => scope.adminUi;
/** A wildcard parameter (`*path`) comes as its segments. */
const joined = (value: unknown) => (Array.isArray(value) ? value.join('/') : String(value ?? ''));

export const adminUiRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/admin-ui/pages',
    permission: 'authenticated',
    tags,
    request: { query: z.object({}) },
    summary: 'The admin pages of enabled plugins the caller may see (sidebar order)',
    description:
      'Collected from the `adminPages` of the manifests of enabled plugins. A `bundled` module is a page compiled into the admin UI; a `url` module is a plain ES module exporting mount(element, ctx), served under /admin/plugin-pages/.',
    response: z.object({ pages: z.array(adminPageView) }),
    handler: ({ scope, identity }) => ({ pages: visiblePages(scope.registries, identity) }),
  }),
  // Declared before the /admin/*path catch-all: the router takes the first route that matches.
  defineRoute({
    ...common,
    method: 'GET',
    path: '/admin/plugin-pages/:pluginId/*file',
    openDuring: ['maintenance'],
    permission: 'authenticated',
    request: { params: z.object({ pluginId: z.string().regex(/^[a-z][a-z0-9-]*$/), file: z.union([z.string(), z.array(z.string())]) }) },
    summary:
      "The ES module of a plugin's admin page (only files declared in an enabled plugin's manifest; text/javascript, no-cache with an ETag)",
    description:
      'Looked up among the declared modules by plugin id and relative path; an undeclared file, a path with `..` or a page the caller may not see answers 404.',
    handler: ({ ctx, scope, identity, params }) =>
      sendPluginPageModule(ctx, scope.registries, identity, params.pluginId, joined(params.file)),
  }),
  {
    ...common,
    method: 'GET',
    path: '/',
    summary: 'Redirects to the admin UI at /admin/ (while setup is incomplete the setup plugin sends you to /setup first)',
    handler: ({ ctx }) => ctx.redirect('/admin/'),
  },
  {
    ...common,
    method: 'GET',
    path: '/admin',
    openDuring: ['maintenance'],
    summary: 'The admin UI (index.html, no-cache); 503 with a short page when the UI has not been built',
    handler: ({ ctx, scope }) => ui(scope).sendPage(ctx, 'Admin'),
  },
  {
    ...common,
    method: 'GET',
    path: '/admin/*path',
    openDuring: ['maintenance'],
    summary: "A file of the admin UI build (hashed assets cached for a year), otherwise index.html for the app's own routes",
    description:
      'Files are looked up in the build read into memory at boot, never on disk by the request path. Unknown /admin/assets/ paths answer 404; other unknown paths serve index.html (history routing).',
    handler: ({ ctx, scope, params }) => ui(scope).sendPath(ctx, joined(params.path)),
  },
  {
    ...common,
    method: 'GET',
    path: '/setup/assets/*path',
    openDuring: ['setup'],
    summary: "The admin UI's assets for the setup wizard (reachable while setup is incomplete)",
    handler: ({ ctx, scope, params }) => ui(scope).sendAsset(ctx, `assets/${joined(params.path)}`),
  },
  ...PUBLIC_PAGES.map((page): RouteDefinition => ({
    ...common,
    method: 'GET',
    path: page.path,
    ...(page.openDuring ? { openDuring: page.openDuring } : {}),
    summary: `The admin UI's page "${page.title}" (linked from mails and sign-in redirects)`,
    handler: ({ ctx, scope }: { ctx: Context; scope: RouteContext['scope'] }) => ui(scope).sendPage(ctx, page.title),
  })),
];

/**
 * The "Koa stack list" anchor of bench case 2 (issue 22): what a small, realistic Koa application would do
 * to serve the kernel's `GET /api/collections/posts?limit=20` from memory, started like bench/bare-koa.ts
 * (`node dist/bench/koa-stack-list.js`, prints "listening on http://..."). Per request, in this order:
 * 1. request id: `X-Request-Id` from the request when it is a sane token, else a random UUID, set on the response;
 * 2. error handler: any thrown error becomes `{success:false, error, message}` with its status (500 hides the message);
 * 3. router: `path-to-regexp` routes (`GET /api/collections/:collection`, `GET /api/health`), 404 otherwise;
 * 4. bearer token: `Authorization: Bearer <token>` looked up in an in-memory Map (token -> identity), 401 if absent;
 * 5. the handler: parses `page` and `limit` (default 25, capped at 100, like the kernel), takes the page from
 *    1,000 posts held in memory (the same fields and shape as the kernel's seeded posts: bench/seed-posts.ts),
 *    and sets `{success:true, data:{items, total, page, limit}}`;
 * 6. ETag: the body is serialised with JSON.stringify and hashed (SHA-1, as the `etag` package behind koa-etag
 *    does) on every request; a matching If-None-Match answers 304 with no body (koa's ctx.fresh).
 * Nothing is cached between requests but the posts themselves. The bench seeds the token through
 * BENCH_KOA_TOKEN (default "bench-token").
 */
import { createHash, randomUUID } from 'node:crypto';
import Koa, { type Context, type Next } from 'koa';
import { match } from 'path-to-regexp';

const TOKEN = process.env.BENCH_KOA_TOKEN ?? 'bench-token';
const tokens = new Map<string, { tenantId: string; role: string }>([[TOKEN, { tenantId: 'default', role: 'website' }]]);

const HOUR = 3600_000;
const created = Date.UTC(2026, 0, 1);
const posts = Array.from({ length: 1000 }, (_, n) => {
  const i = 999 - n; // newest first, like the kernel's default sort (-createdAt)
  const at = new Date(created + i * 1000).toISOString();
  return {
    _id: randomUUID(),
    title: `Post ${i}`,
    excerpt: 'A short summary of the post.',
    body: '<p>'.concat('Lorem ipsum dolor sit amet. '.repeat(20), '</p>'),
    cover: null,
    tags: ['bench', `batch-${Math.floor(i / 100)}`],
    publishedAt: new Date(Date.UTC(2026, 0, 1) + i * HOUR).toISOString(),
    slug: `post-${i}`,
    status: 'published',
    syncId: randomUUID(),
    version: 1,
    createdAt: at,
    updatedAt: at,
    createdBy: randomUUID(),
    updatedBy: randomUUID(),
  };
});

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function requestId(ctx: Context, next: Next): Promise<void> {
  const given = ctx.get('x-request-id');
  ctx.state.requestId = /^[\w-]{1,64}$/.test(given) ? given : randomUUID();
  ctx.set('X-Request-Id', ctx.state.requestId as string);
  await next();
}

async function errors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (err) {
    const e = err instanceof HttpError ? err : new HttpError(500, 'INTERNAL_ERROR', 'Internal server error');
    ctx.status = e.status;
    ctx.body = { success: false, error: e.code, message: e.message };
  }
}

function bearer(ctx: Context): { tenantId: string; role: string } {
  const header = ctx.get('authorization');
  const identity = header.startsWith('Bearer ') ? tokens.get(header.slice(7).trim()) : undefined;
  if (!identity) throw new HttpError(401, 'UNAUTHORIZED', 'A valid bearer token is required');
  return identity;
}

function listPosts(ctx: Context, params: Record<string, string>): void {
  bearer(ctx);
  if (params.collection !== 'posts') throw new HttpError(404, 'NOT_FOUND', `No collection '${params.collection}'`);
  const page = Math.max(1, Number.parseInt(String(ctx.query.page ?? '1'), 10) || 1);
  const limit = Math.min(100, Math.max(1, Number.parseInt(String(ctx.query.limit ?? '25'), 10) || 25));
  const items = posts.slice((page - 1) * limit, page * limit);
  ctx.body = { success: true, data: { items, total: posts.length, page, limit } };
}

const routes: Array<{ method: string; match: ReturnType<typeof match>; handle: (ctx: Context, params: Record<string, string>) => void }> = [
  { method: 'GET', match: match('/api/collections/:collection'), handle: listPosts },
  {
    method: 'GET',
    match: match('/api/health'),
    handle: (ctx) => {
      ctx.body = { success: true, data: { status: 'ok' } };
    },
  },
];

async function router(ctx: Context, next: Next): Promise<void> {
  for (const r of routes) {
    if (r.method !== ctx.method) continue;
    const m = r.match(ctx.path);
    if (m) {
      r.handle(ctx, m.params as Record<string, string>);
      return next();
    }
  }
  throw new HttpError(404, 'NOT_FOUND', `No route ${ctx.method} ${ctx.path}`);
}

/** Serialises the body and tags it (SHA-1 of the JSON, base64, like the `etag` package); 304 when fresh. */
async function etag(ctx: Context, next: Next): Promise<void> {
  await next();
  if (ctx.method !== 'GET' || ctx.status !== 200 || ctx.body == null) return;
  const json = JSON.stringify(ctx.body);
  const hash = createHash('sha1').update(json).digest('base64').slice(0, 27);
  ctx.set('ETag', `"${Buffer.byteLength(json).toString(16)}-${hash}"`);
  ctx.type = 'application/json';
  ctx.body = json;
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.body = null;
  }
}

const app = new Koa();
app.use(requestId).use(errors).use(etag).use(router);
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
});
process.once('SIGTERM', () => server.close());

import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { cappedLimit } from './capped-limit.js';
import { gated } from './gated.js';
import { contentReader, contentTotals, mediaFigures } from './sources.js';

const tags = ['dashboard'];
const titleOf = (e: Record<string, unknown>) => String(e.title ?? e.name ?? e.orderNumber ?? e.slug ?? e._id);

export const activityRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/last5-content',
    permission: 'dashboard:read',
    tags,
    request: { query: z.object({ limit: cappedLimit(5, 50) }) },
    summary: 'The most recently updated entries of the tenant that the caller may read (drafts only with content:write)',
    response: z.array(
      z.object({
        id: z.string(),
        collection: z.string(),
        title: z.string(),
        status: z.string(),
        createdAt: z.string(),
        updatedAt: z.string(),
      }),
    ),
    async handler({ scope, query, identity }) {
      const content = contentReader(scope, identity);
      if (!content) return [];
      const all = [];
      for (const name of content.readable()) {
        for (const e of (await content.entries(name).list({ limit: query.limit, sort: '-updatedAt' })).items) {
          all.push({
            id: e._id,
            collection: name,
            title: titleOf(e),
            status: String(e.status ?? ''),
            createdAt: e.createdAt,
            updatedAt: e.updatedAt,
          });
        }
      }
      return all.sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt)).slice(0, query.limit);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/last5media',
    permission: 'dashboard:read',
    tags,
    request: {},
    summary: 'The five most recently uploaded media files of the tenant ([] without the media plugin)',
    response: z.array(z.record(z.string(), z.unknown())),
    handler: async ({ scope, identity }) => (await mediaFigures(scope, identity, 5)).items,
  }),
  gated(
    'user-online',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/online-user',
      permission: 'dashboard:read',
      tags,
      request: {},
      summary: 'Users of the tenant with active sessions; session duration estimated from expiry minus the session lifetime',
      response: z.object({
        count: z.number().int(),
        sessions: z.number().int(),
        users: z.array(
          z.object({
            userId: z.string(),
            email: z.string(),
            username: z.string(),
            role: z.string(),
            sessions: z.number().int(),
            since: z.string(),
            lastActiveAt: z.string(),
            durationSeconds: z.number().int(),
          }),
        ),
      }),
      async handler({ scope, identity }) {
        const online = await scope.sessions.online(identity.tenantId);
        const users = scope.users;
        const now = Date.now();
        const rows = [];
        for (const o of online.slice(0, 200)) {
          const user = await users.findById(o.userId);
          if (!user) continue;
          rows.push({
            userId: o.userId,
            email: user.email,
            username: user.username,
            role: user.role,
            sessions: o.sessions,
            since: o.since,
            lastActiveAt: o.lastActiveAt,
            durationSeconds: Math.max(0, Math.round((now - Date.parse(o.since)) / 1000)),
          });
        }
        return { count: rows.length, sessions: rows.reduce((n, r) => n + r.sessions, 0), users: rows };
      },
    }),
  ),
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/tenant-analytics',
    permission: 'dashboard:read',
    tags,
    request: {},
    summary: "The caller's tenant in figures: users by role and state, entries per collection, media, online users",
    async handler({ scope, identity }) {
      const [users, content, media, online] = await Promise.all([
        scope.users.summary(identity.tenantId),
        contentTotals(contentReader(scope, identity)),
        mediaFigures(scope, identity, 0),
        scope.sessions.online(identity.tenantId),
      ]);
      return {
        tenantId: identity.tenantId,
        users,
        content: { collections: Object.keys(content.byCollection).length, entries: content.total, byCollection: content.byCollection },
        media: { count: media.total },
        online: { users: online.length, sessions: online.reduce((n, o) => n + o.sessions, 0) },
        timestamp: new Date().toISOString(),
      };
    },
  }),
  gated(
    'commerce-orders',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/commerce-orders',
      permission: 'dashboard:read',
      tags,
      request: { query: z.object({ limit: cappedLimit(5, 50) }) },
      summary:
        'Orders of the commerce preset: total, status mix of the 20 newest, the newest orders; {available:false} without the orders collection',
      response: z.object({
        available: z.boolean(),
        total: z.number().int().optional(),
        byStatus: z.record(z.string(), z.number()).optional(),
        recent: z
          .array(
            z.object({
              id: z.string(),
              orderNumber: z.string(),
              total: z.number(),
              status: z.string(),
              createdAt: z.string(),
              customerEmail: z.string().nullable(),
            }),
          )
          .optional(),
      }),
      async handler({ scope, query, identity }) {
        const content = contentReader(scope, identity);
        if (!content?.readable().includes('orders')) return { available: false };
        const list = await content.entries('orders').list({ limit: Math.max(20, query.limit), sort: '-createdAt' });
        const byStatus: Record<string, number> = {};
        for (const o of list.items.slice(0, 20)) {
          const s = String(o.orderStatus ?? 'unknown');
          byStatus[s] = (byStatus[s] ?? 0) + 1;
        }
        const recent = list.items.slice(0, query.limit).map((o) => ({
          id: o._id,
          orderNumber: String(o.orderNumber ?? ''),
          total: Number(o.total ?? 0),
          status: String(o.orderStatus ?? 'unknown'),
          createdAt: String(o.placedAt ?? o.createdAt),
          customerEmail: typeof o.customerEmail === 'string' ? o.customerEmail : null,
        }));
        return { available: true, total: list.total, byStatus, recent };
      },
    }),
  ),
  gated(
    'commerce-inventory',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/commerce-inventory',
      permission: 'dashboard:read',
      tags,
      request: { query: z.object({ limit: cappedLimit(8, 50) }) },
      summary:
        "Stock of the commerce preset's products: tracked, out of stock, and the lowest below their threshold; {available:false} without the products collection",
      description:
        "A product's threshold is its lowStockThreshold field when the collection has one, else the option lowStockThreshold (default 5). lowStock lists products whose stock is below their threshold (out-of-stock ones included), lowest first.",
      response: z.object({
        available: z.boolean(),
        tracked: z.number().int().optional(),
        outOfStock: z.number().int().optional(),
        lowStock: z
          .array(z.object({ id: z.string(), title: z.string(), sku: z.string().nullable(), qty: z.number(), threshold: z.number() }))
          .optional(),
      }),
      async handler({ scope, query, identity }) {
        const content = contentReader(scope, identity);
        if (!content?.readable().includes('products')) return { available: false };
        const defaultThreshold = scope.dashboardOptions.lowStockThreshold;
        let tracked = 0,
          outOfStock = 0;
        const low: Array<{ id: string; title: string; sku: string | null; qty: number; threshold: number }> = [];
        for (let page = 1; page <= 50; page++) {
          const list = await content.entries('products').list({ page, limit: 100, sort: '-createdAt' });
          for (const p of list.items) {
            if (typeof p.stock !== 'number' || p.active === false) continue;
            tracked++;
            if (p.stock <= 0) outOfStock++;
            const threshold = typeof p.lowStockThreshold === 'number' ? p.lowStockThreshold : defaultThreshold;
            if (p.stock < threshold)
              low.push({ id: p._id, title: titleOf(p), sku: typeof p.sku === 'string' ? p.sku : null, qty: p.stock, threshold });
          }
          if (page * 100 >= list.total) break;
        }
        return { available: true, tracked, outOfStock, lowStock: low.sort((a, b) => a.qty - b.qty).slice(0, query.limit) };
      },
    }),
  ),
];

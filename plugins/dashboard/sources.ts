import { hasPermission, type Identity, optional } from '../../kernel/sdk.js';

type Entry = Record<string, unknown> & { _id: string; createdAt: string; updatedAt: string };
export interface EntryList {
  items: Entry[];
  total: number;
}

/** What the dashboard uses of the content plugin's LocalClient (container key `contentClient`). */
export interface ContentReader {
  collections: { list(): Promise<Array<{ name: string; label?: string }>> };
  entries(name: string): { list(options: { page?: number; limit?: number; sort?: string }): Promise<EntryList> };
}

/** What the dashboard uses of the media plugin's client (container key `mediaClient`), when present. */
export interface MediaReader {
  list(query: { page: number; limit: number; sort?: string }): Promise<{ items: Array<Record<string, unknown>>; total: number }>;
}

/** What the dashboard uses of the auth plugin (container keys `users` and `sessions`). */
export interface UsersReader {
  summary(tenantId: string): Promise<{
    total: number;
    active: number;
    blocked: number;
    locked: number;
    failedAttempts: number;
    twoFactorEnabled: number;
    createdLast30Days: number;
    byRole: Record<string, number>;
  }>;
  findById(id: string): Promise<{ id: string; email: string; username: string; role: string; preferences: string } | null>;
  updateAttributes(userId: string, input: { preferences?: Record<string, unknown> }): Promise<unknown>;
}
export interface SessionsReader {
  online(tenantId: string): Promise<Array<{ userId: string; sessions: number; lastActiveAt: string; since: string; expiresAt: string }>>;
}

/**
 * The content client acting as the caller (never as the system): what a widget lists or counts is what the
 * caller may read through the content API, so readers of published entries only (viewers, their website
 * tokens, guests) never see a draft's title, id or count. undefined without the content plugin or without
 * `content:read` (the widget then shows no content).
 */
export function contentReader(scope: Record<string, unknown>, identity: Identity): ContentReader | undefined {
  const factory = optional(scope, 'contentClient');
  return factory && hasPermission(identity, 'content:read') ? factory(identity) : undefined;
}

/** The media client acting as the caller; undefined without the media plugin or without `media:read`. */
export function mediaReader(scope: Record<string, unknown>, identity: Identity): MediaReader | undefined {
  const factory = optional(scope, 'mediaClient');
  return typeof factory === 'function' && hasPermission(identity, 'media:read') ? factory(identity) : undefined;
}

/** Entries of every collection of the tenant: total and per collection. */
export async function contentTotals(content: ContentReader | undefined): Promise<{ total: number; byCollection: Record<string, number> }> {
  if (!content) return { total: 0, byCollection: {} };
  const byCollection: Record<string, number> = {};
  let total = 0;
  for (const c of await content.collections.list()) {
    const n = (await content.entries(c.name).list({ limit: 1 })).total;
    byCollection[c.name] = n;
    total += n;
  }
  return { total, byCollection };
}

/** Media count and newest items through mediaClient; 0 and [] without the media plugin. */
export async function mediaFigures(
  scope: Record<string, unknown>,
  identity: Identity,
  limit: number,
): Promise<{ total: number; items: Array<Record<string, unknown>> }> {
  const media = mediaReader(scope, identity);
  if (!media) return { total: 0, items: [] };
  try {
    const list = await media.list({ page: 1, limit: Math.max(limit, 1), sort: '-createdAt' });
    return { total: list.total, items: limit ? list.items.slice(0, limit) : [] };
  } catch {
    return { total: 0, items: [] };
  }
}

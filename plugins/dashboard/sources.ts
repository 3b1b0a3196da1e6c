import { hasPermission, type Identity, optional } from '../../kernel/sdk.js';
import type { SessionsService, UsersService } from '../auth/public.js';
import type { LocalClient } from '../content/public.js';
import type { MediaClientFactory } from '../media/public.js';

/** What the dashboard uses of the content plugin's LocalClient (container key `contentClient`). */
export type ContentReader = Pick<LocalClient, 'collections' | 'entries'>;

/** The media plugin's client (container key `mediaClient`), when present. */
export type MediaReader = ReturnType<MediaClientFactory>;

/** What the dashboard uses of the auth plugin (container keys `users` and `sessions`). */
export type UsersReader = Pick<UsersService, 'summary' | 'findById' | 'updateAttributes'>;
export type SessionsReader = Pick<SessionsService, 'online'>;

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

import { hasPermission, hasScopedPermission, type Identity, optional } from '../../kernel/sdk.js';
import type { SessionsService, UsersService } from '../auth/public.js';
import type { LocalClient } from '../content/public.js';
import type { MediaClientFactory } from '../media/public.js';

/**
 * What the dashboard reads of content: the entries through the content plugin's LocalClient acting as the
 * caller (container key `contentClient`), and the names of the collections the caller may read (from the
 * `collections` service: the client's own list needs content:read, which a role reading by rules may lack).
 */
export interface ContentReader {
  /** The collections the caller may read (content:read, its one-collection grant, or a read rule), in the service's order. */
  readable(): string[];
  entries: LocalClient['entries'];
}

/** The media plugin's client (container key `mediaClient`), when present. */
export type MediaReader = ReturnType<MediaClientFactory>;

/** What the dashboard uses of the auth plugin (container keys `users` and `sessions`). */
export type UsersReader = Pick<UsersService, 'summary' | 'findById' | 'updateAttributes'>;
export type SessionsReader = Pick<SessionsService, 'online'>;

/**
 * The content client acting as the caller (never as the system): what a widget lists or counts is what the
 * caller may read through the content API, so readers of published entries only (viewers, their website
 * tokens, guests) never see a draft's title, id or count, and a role's read rules (API decisions, "Roles and
 * rules") keep counts and lists to the entries their `where` lets it read. undefined without the content
 * plugin, or without `content:read` and without any read rule (the widget then shows no content).
 */
export function contentReader(scope: Record<string, unknown>, identity: Identity): ContentReader | undefined {
  const factory = optional(scope, 'contentClient');
  const collections = optional(scope, 'collections');
  const ruled = identity.role !== 'admin' && !!identity.rules?.some((r) => r.action === 'read');
  if (!factory || !collections || !(ruled || hasPermission(identity, 'content:read'))) return undefined;
  const client = factory(identity);
  return {
    readable: () =>
      collections
        .list()
        .map((c) => c.name)
        .filter((name) => readable(identity, name)),
    entries: (name) => client.entries(name),
  };
}

/** Whether the caller may read the collection's entries: content:read, its one-collection grant, or a read rule for it (an API key: within its scope). */
export function readable(identity: Identity, collection: string): boolean {
  // The route check of the entries routes: content:read, its grant, or a rule, within an API key's scope.
  return hasScopedPermission(identity, 'content:read', collection);
}

/** The media client acting as the caller; undefined without the media plugin or without `media:read`. */
export function mediaReader(scope: Record<string, unknown>, identity: Identity): MediaReader | undefined {
  const factory = optional(scope, 'mediaClient');
  return typeof factory === 'function' && hasPermission(identity, 'media:read') ? factory(identity) : undefined;
}

/** Entries of every collection the caller may read, as it may read them: total and per collection. */
export async function contentTotals(content: ContentReader | undefined): Promise<{ total: number; byCollection: Record<string, number> }> {
  if (!content) return { total: 0, byCollection: {} };
  const byCollection: Record<string, number> = {};
  let total = 0;
  for (const name of content.readable()) {
    const n = (await content.entries(name).list({ limit: 1 })).total;
    byCollection[name] = n;
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

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, type Identity, ModelService } from '../../kernel/sdk.js';
import {
  MediaNotFoundError,
  ShareExpiredError,
  ShareNotFoundError,
  SharePasswordInvalidError,
  SharePasswordRequiredError,
} from './errors.js';
import { metadataOf, type MediaMetadata, type SharedLink } from './media-view.js';
import { MediaItem } from './models/media-item.js';
import type { ShareAttempts } from './share-attempts.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const HOUR = 3600 * 1000;
const LINK_ID = /^[0-9a-f]{64}$/;

/** A link is named by its raw token (what the creator got) or by its id (the token's hash, shown in the item). */
export const linkIdOf = (tokenOrId: string) => (LINK_ID.test(tokenOrId) ? tokenOrId : sha256(tokenOrId));
const expiry = (link: SharedLink) => (link.expiresAt === null ? null : new Date(link.expiresAt).toISOString());

/**
 * Share links of media items, stored in metadata.sharedLinks of the item (so every lookup is scoped by
 * the item's tenant): 32 random bytes (base64url) given out once, kept as their SHA-256; an optional
 * password kept as its SHA-256 (the spec's scheme) and compared in constant time; expiry or none.
 */
export class SharesService extends ModelService({ MediaItem })<ShareAttempts> {
  private get attempts(): ShareAttempts {
    return this.deps;
  }

  private async item(identity: Identity, mediaId: string): Promise<MediaItem> {
    const row = z.string().uuid().safeParse(mediaId).success
      ? await this.models.MediaItem.findOne({ where: { id: mediaId, tenant_id: identity.tenantId, deleted_at: null } })
      : null;
    if (!row) throw new MediaNotFoundError(mediaId);
    return row;
  }

  /** Read-modify-write of the metadata, retried when another write got in between (compare-and-set on the text). */
  private async mutate<T>(row: MediaItem, change: (meta: MediaMetadata) => T): Promise<T> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const before = row.metadata;
      const meta = metadataOf(row);
      const result = change(meta);
      const after = JSON.stringify(meta);
      const [n] = await this.models.MediaItem.update(
        { metadata: after, updated_at: Date.now() },
        { where: { id: row.id, metadata: before } },
      );
      if (n === 1) {
        row.metadata = after;
        return result;
      }
      await row.reload();
    }
    throw new ConflictError('The media item was changed at the same time; try again');
  }

  async create(
    identity: Identity,
    mediaId: string,
    input: { expiryHours?: number | null; password?: string },
  ): Promise<{ token: string; expiresAt: string | null }> {
    const row = await this.item(identity, mediaId);
    const token = randomBytes(32).toString('base64url');
    const now = Date.now();
    const link: SharedLink = {
      token: sha256(token),
      expiresAt: input.expiryHours === undefined || input.expiryHours === null ? null : now + input.expiryHours * HOUR,
      ...(input.password !== undefined ? { passwordHash: sha256(input.password) } : {}),
      createdAt: now,
      createdBy: identity.userId,
    };
    await this.mutate(row, (meta) => meta.sharedLinks.push(link));
    return { token, expiresAt: expiry(link) };
  }

  async revoke(identity: Identity, mediaId: string, tokenOrId: string): Promise<void> {
    const row = await this.item(identity, mediaId);
    const id = linkIdOf(tokenOrId);
    await this.mutate(row, (meta) => {
      const before = meta.sharedLinks.length;
      meta.sharedLinks = meta.sharedLinks.filter((l) => l.token !== id);
      if (meta.sharedLinks.length === before) throw new ShareNotFoundError();
    });
  }

  /** Expiry = now + hours (also for a link that had expired or never expired). */
  async extend(
    identity: Identity,
    mediaId: string,
    tokenOrId: string,
    hours: number,
  ): Promise<{ token: string; expiresAt: string | null }> {
    const row = await this.item(identity, mediaId);
    const id = linkIdOf(tokenOrId);
    const link = await this.mutate(row, (meta) => {
      const found = meta.sharedLinks.find((l) => l.token === id);
      if (!found) throw new ShareNotFoundError();
      found.expiresAt = Date.now() + hours * HOUR;
      return found;
    });
    return { token: tokenOrId, expiresAt: expiry(link) };
  }

  /**
   * Public access, in the spec's order (the 400 for missing id or token comes before, in the route):
   * the link must exist on that item (404), not be expired (410), and its password match (401;
   * wrong passwords are counted per link and answered 429 past the limit).
   */
  async access(input: { id: string; token: string; password?: string }): Promise<MediaItem> {
    const row = z.string().uuid().safeParse(input.id).success
      ? await this.models.MediaItem.findOne({ where: { id: input.id, deleted_at: null } })
      : null;
    const id = sha256(input.token);
    const link = row ? metadataOf(row).sharedLinks.find((l) => l.token === id) : undefined;
    if (!row || !link) throw new ShareNotFoundError();
    if (link.expiresAt !== null && link.expiresAt <= Date.now()) throw new ShareExpiredError();
    if (link.passwordHash) {
      await this.attempts.check(id);
      if (input.password === undefined || input.password === '') throw new SharePasswordRequiredError();
      const given = Buffer.from(sha256(input.password), 'hex');
      const stored = Buffer.from(link.passwordHash, 'hex');
      if (given.length !== stored.length || !timingSafeEqual(given, stored)) {
        await this.attempts.failed(id);
        throw new SharePasswordInvalidError();
      }
    }
    return row;
  }
}

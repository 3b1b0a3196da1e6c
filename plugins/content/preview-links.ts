/**
 * Preview links: a secret URL that shows one entry as it is now (drafts included) to someone without an
 * account, until it expires or is revoked. Only a SHA-256 of the token is stored (content_preview_links),
 * so the table never holds a usable link; an entry keeps at most MAX_PER_ENTRY live links (the oldest
 * go first), expired ones are dropped whenever a link is made or opened, and deleting the entry drops
 * its links. Opening answers the entry's fields ready to show: rich text sanitised again on the way out
 * (entries saved before sanitising existed), Markdown rendered to sanitised HTML, media fields with
 * their public URL (private media stay hidden). A link made in a locale (the one the editor was in) shows the entry
 * in that locale: its values there with fallbacks, relations' titles there too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { MediaClientFactory } from '../media/public.js';
import type { CollectionsService } from './collections-service.js';
import { NotFoundError, ValidationError } from '../../kernel/sdk.js';
import { EntryNotFoundError, PreviewExpiredError, PreviewNotFoundError } from './errors.js';
import type { FieldDefinition } from './field-types.js';
import type { ContentClientFactory } from './local-client.js';
import { systemIdentity } from './local-client.js';
import { renderMarkdown, sanitizeRichText } from './rich-text.js';

export const MAX_PER_ENTRY = 20;
export const DEFAULT_HOURS = 72;
export const MAX_HOURS = 30 * 24;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export interface PreviewField {
  name: string;
  label: string;
  type: FieldDefinition['type'];
  /** The stored value (absent for rich text and Markdown, which come as html). */
  value?: unknown;
  /** Rich text and Markdown: sanitised HTML to show. */
  html?: string;
  /** Media fields: the public file (null when missing or private). */
  media?: { url: string; filename: string; mimeType: string; width?: number; height?: number } | null;
  /** Relation fields: the related entry's display title (null when it no longer exists); value keeps its id. */
  relation?: { collection: string; title: string } | null;
}

/** An entry's display title: its first non-empty text field, else its slug, else its id. */
function titleOf(entry: Record<string, any>, fields: FieldDefinition[]): string {
  const firstText = fields.find((f) => f.type === 'text' && typeof entry[f.name] === 'string' && entry[f.name]);
  return firstText ? String(entry[firstText.name]) : entry.slug || entry._id;
}

export interface PreviewView {
  collection: { name: string; label: string; singular: string };
  /** The locale the entry is shown in. */
  locale: string;
  /** `draft`: the values are the entry's working draft's (a collection with drafts), not the published ones. */
  entry: { id: string; slug: string; status: string; version: number; updatedAt: string; title: string; draft: boolean };
  fields: PreviewField[];
  expiresAt: string;
}

interface LinkRow {
  tenant_id: string;
  collection: string;
  entry_id: string;
  expires_at: number | string;
  locale: string | null;
}

export class PreviewLinks {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly collections: CollectionsService,
    private readonly content: () => ContentClientFactory,
    private readonly media: () => MediaClientFactory | undefined,
  ) {}

  /**
   * A new link for an entry the caller has checked; the token is shown once. `locale`: the (checked, canonical) locale
   * it shows the entry in; null or absent: the default locale.
   */
  async create(tenantId: string, collection: string, entryId: string, hours: number, userId: string | null, locale: string | null = null) {
    const token = `pv_${randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    const expiresAt = now + hours * 3600_000;
    await this.sequelize.transaction(async (transaction) => {
      await this.sequelize.query('DELETE FROM content_preview_links WHERE expires_at <= ?', { replacements: [now], transaction });
      const live = await this.sequelize.query<{ token_hash: string }>(
        'SELECT token_hash FROM content_preview_links WHERE tenant_id = ? AND collection = ? AND entry_id = ? ORDER BY created_at DESC, expires_at DESC',
        { replacements: [tenantId, collection, entryId], type: QueryTypes.SELECT, transaction },
      );
      const surplus = live.slice(MAX_PER_ENTRY - 1).map((r) => r.token_hash);
      if (surplus.length)
        await this.sequelize.query('DELETE FROM content_preview_links WHERE token_hash IN (?)', { replacements: [surplus], transaction });
      await this.sequelize.query(
        'INSERT INTO content_preview_links (token_hash, tenant_id, collection, entry_id, expires_at, created_by, created_at, locale) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        { replacements: [hashOf(token), tenantId, collection, entryId, expiresAt, userId, now, locale], transaction },
      );
    });
    return { token, url: `/admin/preview?token=${encodeURIComponent(token)}`, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** How many live links the entry has and when the last of them expires. */
  async status(tenantId: string, collection: string, entryId: string) {
    const rows = await this.sequelize.query<{ n: number | string; last: number | string | null }>(
      'SELECT COUNT(*) AS n, MAX(expires_at) AS last FROM content_preview_links WHERE tenant_id = ? AND collection = ? AND entry_id = ? AND expires_at > ?',
      { replacements: [tenantId, collection, entryId, Date.now()], type: QueryTypes.SELECT },
    );
    const last = rows[0]?.last;
    return {
      active: Number(rows[0]?.n ?? 0),
      expiresAt: last === null || last === undefined ? null : new Date(Number(last)).toISOString(),
    };
  }

  /** Revokes every link of the entry; returns how many were live. */
  async revokeAll(tenantId: string, collection: string, entryIds: string[]): Promise<number> {
    if (!entryIds.length) return 0;
    const { active } = entryIds.length === 1 ? await this.status(tenantId, collection, entryIds[0]!) : { active: 0 };
    await this.sequelize.query('DELETE FROM content_preview_links WHERE tenant_id = ? AND collection = ? AND entry_id IN (?)', {
      replacements: [tenantId, collection, entryIds],
    });
    return active;
  }

  /** What a link shows; 404 PREVIEW_NOT_FOUND for an unknown or revoked token, 410 PREVIEW_EXPIRED. */
  async open(token: string): Promise<PreviewView> {
    const hash = hashOf(token);
    const rows = await this.sequelize.query<LinkRow>(
      'SELECT tenant_id, collection, entry_id, expires_at, locale FROM content_preview_links WHERE token_hash = ?',
      { replacements: [hash], type: QueryTypes.SELECT },
    );
    const link = rows[0];
    if (!link) throw new PreviewNotFoundError();
    if (Number(link.expires_at) <= Date.now()) throw new PreviewExpiredError();
    const collection = this.collections.list().find((c) => c.name === link.collection);
    if (!collection) throw new PreviewNotFoundError();
    const identity = systemIdentity(link.tenant_id);
    const entries = this.content()(identity).entries(collection.name);
    let entry;
    try {
      // The link's locale; one deleted since shows the default locale's values.
      entry = await entries.get(link.entry_id, link.locale ? { locale: link.locale } : {}).catch((err: unknown) => {
        if (link.locale && err instanceof ValidationError) return entries.get(link.entry_id);
        throw err;
      });
    } catch (err) {
      if (err instanceof EntryNotFoundError) throw new PreviewNotFoundError();
      throw err;
    }
    const locale = String(entry._locale);
    // A collection with working drafts previews the draft when the entry has one: what is being edited.
    let draft = false;
    if (collection.drafts) {
      const edited = await entries.getDraft(link.entry_id, { locale }).catch((err: unknown) => {
        if (err instanceof NotFoundError) return null;
        throw err;
      });
      if (edited) [entry, draft] = [edited, true];
    }
    const fields: PreviewField[] = [];
    for (const f of collection.fields) {
      if (f.name === '_source_import') continue;
      fields.push(await this.field(f, entry[f.name], identity, locale));
    }
    return {
      collection: { name: collection.name, label: collection.label, singular: collection.singular },
      locale,
      entry: {
        id: entry._id,
        slug: entry.slug,
        status: entry.status,
        version: entry.version,
        updatedAt: entry.updatedAt,
        title: titleOf(entry, collection.fields),
        draft,
      },
      fields,
      expiresAt: new Date(Number(link.expires_at)).toISOString(),
    };
  }

  private async field(
    f: FieldDefinition,
    value: unknown,
    identity: ReturnType<typeof systemIdentity>,
    locale: string,
  ): Promise<PreviewField> {
    const base = { name: f.name, label: f.label ?? f.name, type: f.type };
    if (f.type === 'richtext') return { ...base, html: typeof value === 'string' ? sanitizeRichText(value) : '' };
    if (f.type === 'markdown') return { ...base, html: typeof value === 'string' ? renderMarkdown(value) : '' };
    if (f.type === 'relation') {
      const target = f.collection ? this.collections.list().find((c) => c.name === f.collection) : undefined;
      if (typeof value !== 'string' || !value || !target) return { ...base, value: value ?? null, relation: null };
      try {
        const related = await this.content()(identity).entries(target.name).get(value, { locale });
        return { ...base, value, relation: { collection: target.name, title: titleOf(related, target.fields) } };
      } catch (err) {
        if (err instanceof EntryNotFoundError) return { ...base, value, relation: null };
        throw err;
      }
    }
    if (f.type === 'media') {
      const factory = this.media();
      if (typeof value !== 'string' || !value || !factory) return { ...base, media: null };
      try {
        const m = await factory(identity).get(value);
        if (m.private) return { ...base, media: null };
        return {
          ...base,
          media: {
            url: m.url,
            filename: m.filename,
            mimeType: m.mimeType,
            ...('width' in m && m.width !== undefined ? { width: m.width, height: m.height } : {}),
          },
        };
      } catch {
        return { ...base, media: null };
      }
    }
    return { ...base, value: value ?? null };
  }
}

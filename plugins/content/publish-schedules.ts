/**
 * Scheduled publishing and unpublishing: an entry may carry one publish time and one unpublish time per locale
 * (content_schedules, `action` 'publish' or 'unpublish'; `locale` '' is the entry's row, the default locale's version;
 * another code that locale's version, docs/features/localisation.md). A runner on every
 * instance looks for due schedules every SCHEDULE_INTERVAL_MS (at most BATCH a round); an instance
 * claims one by deleting its row (only the one whose DELETE removed it publishes), then publishes the
 * entry (or sets it back to draft) as the scheduling user's tenant's system identity, so revisions, events, caches and
 * webhooks follow as for any status change. A schedule whose entry is gone, already published (publish) or not
 * published (unpublish) is dropped.
 */
import { Op, QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from '../../kernel/sdk.js';
import type { ContentClientFactory } from './local-client.js';
import { systemIdentity } from './local-client.js';

const BATCH = 100;

export interface Schedule {
  publishAt: string | null;
  unpublishAt: string | null;
}

export type ScheduleAction = 'publish' | 'unpublish';
const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

export class PublishSchedules {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly content: () => ContentClientFactory,
    private readonly logger: Logger,
  ) {}

  /** `locale`: a non-default locale whose version the schedules concern; '' (the default): the entry's row. */
  async get(tenantId: string, collection: string, entryId: string, locale = ''): Promise<Schedule> {
    const rows = await this.sequelize.query<{ action: string; at: number | string }>(
      'SELECT action, publish_at AS at FROM content_schedules WHERE tenant_id = ? AND collection = ? AND entry_id = ? AND locale = ?',
      { replacements: [tenantId, collection, entryId, locale], type: QueryTypes.SELECT },
    );
    const at = (action: ScheduleAction) => rows.find((r) => (r.action ?? 'publish') === action)?.at;
    const publish = at('publish');
    const unpublish = at('unpublish');
    return { publishAt: publish === undefined ? null : iso(publish), unpublishAt: unpublish === undefined ? null : iso(unpublish) };
  }

  /**
   * Sets (a Date) or cancels (null) the entry's publish and unpublish times; a key left undefined stays as it is. The
   * caller checked the entry and the times.
   */
  async set(
    tenantId: string,
    collection: string,
    entryId: string,
    times: { publishAt?: Date | null; unpublishAt?: Date | null },
    userId: string | null,
    locale = '',
  ): Promise<Schedule> {
    await this.sequelize.transaction(async (transaction) => {
      for (const [action, when] of [
        ['publish', times.publishAt],
        ['unpublish', times.unpublishAt],
      ] as const) {
        if (when === undefined) continue;
        await this.sequelize.query(
          'DELETE FROM content_schedules WHERE tenant_id = ? AND collection = ? AND entry_id = ? AND locale = ? AND action = ?',
          { replacements: [tenantId, collection, entryId, locale, action], transaction },
        );
        if (when)
          await this.sequelize.query(
            'INSERT INTO content_schedules (tenant_id, collection, entry_id, locale, action, publish_at, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
            { replacements: [tenantId, collection, entryId, locale, action, when.getTime(), userId, Date.now()], transaction },
          );
      }
    });
    return this.get(tenantId, collection, entryId, locale);
  }

  /** Publishes and unpublishes what is due (one round, in time order); returns how many entries this instance changed. */
  async runDue(now = Date.now()): Promise<number> {
    const due = await this.sequelize.query<{
      id: number;
      tenant_id: string;
      collection: string;
      entry_id: string;
      locale: string;
      action: string;
    }>(
      'SELECT id, tenant_id, collection, entry_id, locale, action FROM content_schedules WHERE publish_at <= ? ORDER BY publish_at, id LIMIT ?',
      { replacements: [now, BATCH], type: QueryTypes.SELECT },
    );
    let published = 0;
    for (const row of due) {
      const removed = await this.sequelize.query('DELETE FROM content_schedules WHERE id = ?', {
        replacements: [row.id],
        type: QueryTypes.BULKDELETE,
      });
      if (Number(removed) !== 1) continue; // another instance claimed it
      try {
        const entries = this.content()(systemIdentity(row.tenant_id)).entries(row.collection);
        // A locale's schedule publishes that locale's version (its status in an answer in it is the version's).
        const locale = row.locale ? { locale: row.locale } : {};
        const entry = await entries.get(row.entry_id, locale);
        const unpublish = row.action === 'unpublish';
        if (unpublish ? entry.status !== 'published' : entry.status === 'published') continue;
        await entries.setStatus(row.entry_id, unpublish ? 'draft' : 'published', locale);
        published++;
      } catch (err) {
        this.logger.warn(
          { err, collection: row.collection, entryId: row.entry_id, locale: row.locale || undefined },
          `scheduled ${row.action === 'unpublish' ? 'unpublishing' : 'publishing'} failed; the schedule is dropped`,
        );
      }
    }
    return published;
  }

  /** Drops the schedules of entries that no longer exist in a collection (after deletes). */
  async forget(tenantId: string, collection: string, entryIds: string[]): Promise<void> {
    if (!entryIds.length) return;
    await this.sequelize
      .getQueryInterface()
      .bulkDelete('content_schedules', { tenant_id: tenantId, collection, entry_id: { [Op.in]: entryIds } }, {});
  }
}

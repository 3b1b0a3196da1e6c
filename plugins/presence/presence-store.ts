/**
 * Who has an entry open (table cms_presence): one row per browser tab, refreshed by its heartbeats. The editor of an
 * entry is the live tab that took over last, else the live tab that opened it first (ties by tab id): every instance
 * reads the same rows and so names the same editor, whatever order the heartbeats arrive in.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { rowsChanged } from '../../kernel/sdk.js';
import { PresenceNotPresentError } from './errors.js';
import type { PresenceOptions } from './options.js';

export interface PresenceKey {
  tenantId: string;
  collection: string;
  entryId: string;
}

export interface Visitor {
  tab: string;
  userId: string | null;
  name: string;
  canEdit: boolean;
}

/** One tab in an answer. */
export interface PresentTab {
  tab: string;
  userId: string | null;
  name: string;
  since: string;
  lastSeen: string;
  /** This tab edits the entry; the others see it read-only. */
  editing: boolean;
  /** The caller's own tab. */
  you: boolean;
}

export interface PresenceView {
  /** The tab that edits (null when no live tab may edit). */
  editor: { tab: string; userId: string | null; name: string } | null;
  /** The caller's tab edits. */
  youEdit: boolean;
  /** Every live tab, the editor first, then by opening time. */
  tabs: PresentTab[];
  /** Seconds after which a tab without a heartbeat no longer counts (the UI sends one about three times as often). */
  ttlSeconds: number;
}

interface Row {
  tab: string;
  user_id: string | null;
  name: string;
  can_edit: number | boolean;
  since: number | string;
  last_seen: number | string;
  taken_at: number | string | null;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

export class PresenceStore {
  constructor(
    private readonly sequelize: () => Sequelize,
    private readonly options: PresenceOptions,
    private readonly now: () => number = Date.now,
  ) {}

  private where(key: PresenceKey) {
    return { tenant: key.tenantId, collection: key.collection, entry: key.entryId };
  }

  /** Records a heartbeat of `visitor`'s tab (opening the entry on the first) and answers who is there. */
  async heartbeat(key: PresenceKey, visitor: Visitor): Promise<PresenceView> {
    const now = this.now();
    const db = this.sequelize();
    const replacements = { ...this.where(key), tab: visitor.tab, now };
    const [, changed] = await db.query(
      `UPDATE cms_presence SET last_seen = :now WHERE tenant_id = :tenant AND collection = :collection AND entry_id = :entry AND tab = :tab AND last_seen >= :live AND left_at IS NULL`,
      { replacements: { ...replacements, live: now - this.options.ttlMs }, type: QueryTypes.UPDATE },
    );
    if (!rowsChanged(changed)) {
      // A new tab, or one whose row expired: it opens the entry again (a stale row of the same tab is replaced).
      // A tab that left keeps its row for the time to live: a heartbeat of it that arrives after the leave (sent
      // before) finds that row, the INSERT below meets the key, and the entry stays closed for that tab.
      await db.query(
        `DELETE FROM cms_presence WHERE tenant_id = :tenant AND collection = :collection AND entry_id = :entry AND tab = :tab
         AND (left_at IS NULL OR last_seen < :live)`,
        { replacements: { ...replacements, live: now - this.options.ttlMs }, type: QueryTypes.DELETE },
      );
      await db
        .query(
          `INSERT INTO cms_presence (tenant_id, collection, entry_id, tab, user_id, name, can_edit, since, last_seen, taken_at)
           VALUES (:tenant, :collection, :entry, :tab, :user, :name, :canEdit, :now, :now, NULL)`,
          {
            replacements: { ...replacements, user: visitor.userId, name: visitor.name.slice(0, 191), canEdit: visitor.canEdit ? 1 : 0 },
            type: QueryTypes.INSERT,
          },
        )
        .catch((err: unknown) => {
          // Two heartbeats of one tab at once (the other one inserted it), or the tab left (its row stays).
          if ((err as { name?: string }).name !== 'SequelizeUniqueConstraintError') throw err;
        });
    }
    return this.view(key, visitor.tab);
  }

  /** Makes `tab` the editor (it must be present); answers who is there. */
  async takeOver(key: PresenceKey, tab: string): Promise<PresenceView> {
    const now = this.now();
    const [, changed] = await this.sequelize().query(
      `UPDATE cms_presence SET taken_at = :now, last_seen = :now WHERE tenant_id = :tenant AND collection = :collection AND entry_id = :entry AND tab = :tab AND last_seen >= :live AND can_edit = 1 AND left_at IS NULL`,
      { replacements: { ...this.where(key), tab, now, live: now - this.options.ttlMs }, type: QueryTypes.UPDATE },
    );
    if (!rowsChanged(changed)) throw new PresenceNotPresentError();
    return this.view(key, tab);
  }

  /**
   * The tab closed the entry: its row stays, marked as left, until the sweep (after the time to live), so that a
   * heartbeat of this tab still on its way does not open the entry again. A tab whose first heartbeat has not been
   * recorded yet (the page closed while it was on its way) gets a row marked as left, for the same reason.
   */
  async leave(key: PresenceKey, tab: string): Promise<void> {
    const now = this.now();
    const db = this.sequelize();
    const replacements = { ...this.where(key), tab, now };
    const mark = () =>
      db.query(
        `UPDATE cms_presence SET left_at = :now, last_seen = :now WHERE tenant_id = :tenant AND collection = :collection AND entry_id = :entry AND tab = :tab`,
        { replacements, type: QueryTypes.UPDATE },
      );
    const [, changed] = await mark();
    if (rowsChanged(changed)) return;
    await db
      .query(
        `INSERT INTO cms_presence (tenant_id, collection, entry_id, tab, user_id, name, can_edit, since, last_seen, taken_at, left_at)
         VALUES (:tenant, :collection, :entry, :tab, NULL, '', 0, :now, :now, NULL, :now)`,
        { replacements, type: QueryTypes.INSERT },
      )
      .catch(async (err: unknown) => {
        // The first heartbeat landed meanwhile: its row is marked as left.
        if ((err as { name?: string }).name !== 'SequelizeUniqueConstraintError') throw err;
        await mark();
      });
  }

  /** Who has the entry open (`tab`: the caller's, if any). */
  async view(key: PresenceKey, tab: string | null): Promise<PresenceView> {
    const rows = await this.sequelize().query<Row>(
      `SELECT tab, user_id, name, can_edit, since, last_seen, taken_at FROM cms_presence
       WHERE tenant_id = :tenant AND collection = :collection AND entry_id = :entry AND last_seen >= :live AND left_at IS NULL
       ORDER BY since, tab LIMIT ${this.options.maxPerEntry * 4}`,
      { replacements: { ...this.where(key), live: this.now() - this.options.ttlMs }, type: QueryTypes.SELECT },
    );
    const editors = rows.filter((r) => Boolean(Number(r.can_edit)));
    const taken = editors
      .filter((r) => r.taken_at !== null)
      .sort((a, b) => Number(b.taken_at) - Number(a.taken_at) || a.tab.localeCompare(b.tab));
    const editor = taken[0] ?? editors[0] ?? null;
    const ordered = editor ? [editor, ...rows.filter((r) => r !== editor)] : rows;
    const tabs = ordered.slice(0, this.options.maxPerEntry).map((r): PresentTab => ({
      tab: r.tab,
      userId: r.user_id,
      name: r.name,
      since: iso(r.since),
      lastSeen: iso(r.last_seen),
      editing: r === editor,
      you: r.tab === tab,
    }));
    return {
      editor: editor ? { tab: editor.tab, userId: editor.user_id, name: editor.name } : null,
      youEdit: editor !== null && editor.tab === tab,
      tabs,
      ttlSeconds: Math.round(this.options.ttlMs / 1000),
    };
  }

  /** Deletes the rows of tabs gone for longer than the time to live (any tenant); answers how many. */
  async sweep(): Promise<number> {
    const result: unknown = await this.sequelize().query(`DELETE FROM cms_presence WHERE last_seen < :before`, {
      replacements: { before: this.now() - this.options.ttlMs },
      type: QueryTypes.DELETE,
    });
    return Array.isArray(result) ? rowsChanged(result[1]) : rowsChanged(result);
  }
}

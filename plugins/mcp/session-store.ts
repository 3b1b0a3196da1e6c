/**
 * The agent sessions and the changes each made (tables cms_mcp_sessions, cms_mcp_changes; migrations.ts). A change
 * row is written at the session's first write of an entry, with the state before it; later writes of the same entry
 * in the session only move `version_after`. Everything is read and written per tenant.
 */
import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { ConflictError, rowsChanged, ValidationError } from '../../kernel/sdk.js';
import { McpSessionNotFoundError } from './errors.js';

/** At most this many entries (and media items) changed per session: a revert stays one bounded set. */
export const MAX_CHANGES_PER_SESSION = 1000;

export type ChangeKind = 'created' | 'updated';
/** The collection name a media item's change is recorded under. */
export const MEDIA_COLLECTION = '_media';

export interface SessionOwner {
  id: string;
  tenantId: string;
  keyId: string;
  keyName: string;
}

export interface ChangeView {
  kind: ChangeKind;
  collection: string;
  entryId: string;
  versionAfter: number | null;
  at: string;
}

export interface ChangeRecord extends ChangeView {
  /**
   * `updated`: the entry's values and version before the session, and (collections with drafts) its working draft's
   * fields then (null: it had none).
   */
  before: { values: Record<string, unknown>; version: number; draft?: Record<string, unknown> | null } | null;
}

export interface SessionView {
  _id: string;
  keyId: string;
  keyName: string;
  startedAt: string;
  lastActivityAt: string;
  changes: number;
  revertedAt: string | null;
  revertedBy: string | null;
}

interface SessionRow {
  id: string;
  tenant_id: string;
  key_id: string;
  key_name: string;
  started_at: number | string;
  last_at: number | string;
  changes: number | string;
  reverted_at: number | string | null;
  reverted_by: string | null;
}

interface ChangeRow {
  kind: string;
  collection: string;
  entry_id: string;
  prior: string | null;
  version_after: number | string | null;
  updated_at: number | string;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();
const view = (r: SessionRow): SessionView => ({
  _id: r.id,
  keyId: r.key_id,
  keyName: r.key_name,
  startedAt: iso(r.started_at),
  lastActivityAt: iso(r.last_at),
  changes: Number(r.changes),
  revertedAt: r.reverted_at === null ? null : iso(r.reverted_at),
  revertedBy: r.reverted_by,
});
const SESSION_COLUMNS = 'id, tenant_id, key_id, key_name, started_at, last_at, changes, reverted_at, reverted_by';

export class SessionStore {
  constructor(private readonly sequelize: () => Sequelize) {}

  private query<T extends object>(sql: string, replacements: unknown[]): Promise<T[]> {
    return this.sequelize().query<T>(sql, { replacements, type: QueryTypes.SELECT });
  }

  private async run(sql: string, replacements: unknown[]): Promise<void> {
    await this.sequelize().query(sql, { replacements });
  }

  private async row(tenantId: string, id: string): Promise<SessionRow | undefined> {
    return (
      await this.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM cms_mcp_sessions WHERE id = ? AND tenant_id = ?`, [id, tenantId])
    )[0];
  }

  /**
   * The session's row, made at its first write; a session id of another key or tenant (or a reverted session) is
   * refused: an agent cannot add changes to a set someone else's revert would undo.
   */
  async open(owner: SessionOwner, now = Date.now()): Promise<void> {
    const select = async () =>
      (await this.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM cms_mcp_sessions WHERE id = ?`, [owner.id]))[0];
    let found = await select();
    if (!found) {
      try {
        await this.run(
          'INSERT INTO cms_mcp_sessions (id, tenant_id, key_id, key_name, started_at, last_at, changes) VALUES (?, ?, ?, ?, ?, ?, 0)',
          [owner.id, owner.tenantId, owner.keyId, owner.keyName.slice(0, 191), now, now],
        );
        return;
      } catch (err) {
        found = await select(); // made by a parallel call of the same session meanwhile
        if (!found) throw err;
      }
    }
    if (found.tenant_id !== owner.tenantId || found.key_id !== owner.keyId)
      throw new ValidationError('This MCP session belongs to another API key: start a new session (initialize again)', [
        { path: 'mcp-session-id', message: 'a session of another key' },
      ]);
    if (found.reverted_at !== null) throw new ConflictError('This agent session was reverted: start a new session (initialize again)');
    await this.run('UPDATE cms_mcp_sessions SET last_at = ? WHERE id = ?', [now, owner.id]);
  }

  /** Records a write of the session: the first one of an entry keeps `before`; later ones move `versionAfter`. */
  async record(
    owner: SessionOwner,
    change: { kind: ChangeKind; collection: string; entryId: string; before: ChangeRecord['before']; versionAfter: number | null },
  ): Promise<void> {
    const now = Date.now();
    const moved = await this.sequelize().query(
      'UPDATE cms_mcp_changes SET version_after = ?, updated_at = ? WHERE session_id = ? AND collection = ? AND entry_id = ?',
      { replacements: [change.versionAfter, now, owner.id, change.collection, change.entryId], type: QueryTypes.UPDATE },
    );
    if (affected(moved) > 0) return;
    await this.run(
      `INSERT INTO cms_mcp_changes (id, session_id, tenant_id, kind, collection, entry_id, prior, version_after, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        randomUUID(),
        owner.id,
        owner.tenantId,
        change.kind,
        change.collection,
        change.entryId,
        change.before === null ? null : JSON.stringify(change.before),
        change.versionAfter,
        now,
        now,
      ],
    );
    await this.run('UPDATE cms_mcp_sessions SET changes = changes + 1, last_at = ? WHERE id = ?', [now, owner.id]);
  }

  /** Whether the session may record one more entry (the bound), counting an entry it already changed as free. */
  async assertRoom(owner: SessionOwner, collection: string, entryId: string | null): Promise<void> {
    const row = await this.row(owner.tenantId, owner.id);
    if (!row || Number(row.changes) < MAX_CHANGES_PER_SESSION) return;
    if (entryId) {
      const known = await this.query<{ n: number }>(
        'SELECT COUNT(*) AS n FROM cms_mcp_changes WHERE session_id = ? AND collection = ? AND entry_id = ?',
        [owner.id, collection, entryId],
      );
      if (Number(known[0]?.n ?? 0) > 0) return;
    }
    throw new ValidationError(`An agent session changes at most ${MAX_CHANGES_PER_SESSION} entries: start a new session`, [
      { path: 'mcp-session-id', message: `more than ${MAX_CHANGES_PER_SESSION} changes` },
    ]);
  }

  async list(tenantId: string, page: number, limit: number): Promise<{ items: SessionView[]; total: number; page: number; limit: number }> {
    const rows = await this.query<SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM cms_mcp_sessions WHERE tenant_id = ? ORDER BY last_at DESC, id LIMIT ? OFFSET ?`,
      [tenantId, limit, (page - 1) * limit],
    );
    const count = await this.query<{ n: number }>('SELECT COUNT(*) AS n FROM cms_mcp_sessions WHERE tenant_id = ?', [tenantId]);
    return { items: rows.map(view), total: Number(count[0]?.n ?? 0), page, limit };
  }

  async get(tenantId: string, id: string): Promise<SessionView & { changeList: ChangeRecord[] }> {
    const row = id.length <= 64 ? await this.row(tenantId, id) : undefined;
    if (!row) throw new McpSessionNotFoundError(id);
    const changes = await this.query<ChangeRow>(
      `SELECT kind, collection, entry_id, prior, version_after, updated_at
         FROM cms_mcp_changes WHERE session_id = ? AND tenant_id = ? ORDER BY created_at, id LIMIT ?`,
      [id, tenantId, MAX_CHANGES_PER_SESSION],
    );
    return {
      ...view(row),
      changeList: changes.map((c) => ({
        kind: c.kind as ChangeKind,
        collection: c.collection,
        entryId: c.entry_id,
        versionAfter: c.version_after === null ? null : Number(c.version_after),
        at: iso(c.updated_at),
        before: c.prior === null ? null : (JSON.parse(c.prior) as ChangeRecord['before']),
      })),
    };
  }

  /** Marks the session reverted; false when another revert did first. */
  async markReverted(tenantId: string, id: string, by: string | null): Promise<boolean> {
    const result = await this.sequelize().query(
      'UPDATE cms_mcp_sessions SET reverted_at = ?, reverted_by = ? WHERE id = ? AND tenant_id = ? AND reverted_at IS NULL',
      { replacements: [Date.now(), by, id, tenantId], type: QueryTypes.UPDATE },
    );
    return affected(result) > 0;
  }
}

/** The rows an UPDATE changed, on SQLite and MariaDB. */
const affected = (result: unknown) => rowsChanged((result as [unknown, unknown])[1]);

import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';

export interface Note {
  id: string;
  text: string;
  createdAt: string;
}
interface Row {
  id: string;
  text: string;
  created_at: number;
}
const toNote = (r: Row): Note => ({ id: r.id, text: r.text, createdAt: new Date(Number(r.created_at)).toISOString() });

/** The notes table (a singleton): every call names the owner. */
export class NotesStore {
  constructor(private readonly sequelize: Sequelize) {}

  async list(tenantId: string, userId: string): Promise<Note[]> {
    const rows = await this.sequelize.query<Row>(
      'SELECT id, text, created_at FROM notes_items WHERE tenant_id = ? AND user_id = ? ORDER BY created_at DESC, id LIMIT 100',
      { replacements: [tenantId, userId], type: QueryTypes.SELECT },
    );
    return rows.map(toNote);
  }

  async add(tenantId: string, userId: string, text: string): Promise<Note> {
    const row: Row = { id: randomUUID(), text, created_at: Date.now() };
    await this.sequelize.query('INSERT INTO notes_items (id, tenant_id, user_id, text, created_at) VALUES (?, ?, ?, ?, ?)', {
      replacements: [row.id, tenantId, userId, text, row.created_at],
    });
    return toNote(row);
  }

  /** True when a note was removed. */
  async remove(tenantId: string, userId: string, id: string): Promise<boolean> {
    const found = await this.sequelize.query<{ id: string }>('SELECT id FROM notes_items WHERE id = ? AND tenant_id = ? AND user_id = ?', {
      replacements: [id, tenantId, userId],
      type: QueryTypes.SELECT,
    });
    if (!found.length) return false;
    await this.sequelize.query('DELETE FROM notes_items WHERE id = ?', { replacements: [id] });
    return true;
  }

  /** Deletes notes older than `days`; returns how many. */
  async prune(days: number): Promise<number> {
    const before = Date.now() - days * 86_400_000;
    const [{ n }] = await this.sequelize.query<{ n: number }>('SELECT COUNT(*) AS n FROM notes_items WHERE created_at < ?', {
      replacements: [before],
      type: QueryTypes.SELECT,
    });
    if (Number(n) > 0) await this.sequelize.query('DELETE FROM notes_items WHERE created_at < ?', { replacements: [before] });
    return Number(n);
  }
}

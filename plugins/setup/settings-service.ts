import { QueryTypes, type Sequelize } from 'sequelize';
import { PRIVATE_SETTINGS, PUBLIC_SETTINGS } from './settings-catalogue.js';

/** System settings (cms_settings): JSON values per tenant; private ones never leave the server. */
export class SettingsService {
  constructor(private readonly sequelize: Sequelize) {}

  /** Writes every default that is missing; existing values are kept (seeding twice changes nothing). */
  async seedDefaults(tenantId = 'default', onProgress?: (done: number, total: number) => Promise<void>): Promise<number> {
    const all = [...PUBLIC_SETTINGS.map((s) => ({ ...s, isPrivate: false })), ...PRIVATE_SETTINGS.map((s) => ({ ...s, isPrivate: true }))];
    const existing = new Set(
      (
        await this.sequelize.query<{ key: string }>('SELECT `key` FROM cms_settings WHERE tenant_id = ?', {
          replacements: [tenantId],
          type: QueryTypes.SELECT,
        })
      ).map((r) => r.key),
    );
    let written = 0;
    for (const [i, setting] of all.entries()) {
      if (!existing.has(setting.key)) {
        await this.sequelize.query('INSERT INTO cms_settings (tenant_id, `key`, value, is_private, updated_at) VALUES (?, ?, ?, ?, ?)', {
          replacements: [tenantId, setting.key, JSON.stringify(setting.value), setting.isPrivate, Date.now()],
        });
        written++;
      }
      if (onProgress && i % 8 === 7) await onProgress(i + 1, all.length);
    }
    return written;
  }

  async get<T = unknown>(key: string, tenantId = 'default'): Promise<T | undefined> {
    const rows = await this.sequelize.query<{ value: string }>('SELECT value FROM cms_settings WHERE tenant_id = ? AND `key` = ?', {
      replacements: [tenantId, key],
      type: QueryTypes.SELECT,
    });
    return rows[0] ? (JSON.parse(rows[0].value) as T) : undefined;
  }

  async set(key: string, value: unknown, tenantId = 'default'): Promise<void> {
    await this.sequelize.query('UPDATE cms_settings SET value = ?, updated_at = ? WHERE tenant_id = ? AND `key` = ?', {
      replacements: [JSON.stringify(value), Date.now(), tenantId, key],
    });
  }

  async counts(tenantId = 'default'): Promise<{ public: number; private: number }> {
    const rows = await this.sequelize.query<{ is_private: number | boolean; n: number }>(
      'SELECT is_private, COUNT(*) AS n FROM cms_settings WHERE tenant_id = ? GROUP BY is_private',
      {
        replacements: [tenantId],
        type: QueryTypes.SELECT,
      },
    );
    const count = (priv: boolean) => Number(rows.find((r) => Boolean(Number(r.is_private)) === priv)?.n ?? 0);
    return { public: count(false), private: count(true) };
  }
}

import { QueryTypes, type Sequelize } from 'sequelize';
import { PRIVATE_SETTINGS, PUBLIC_SETTINGS } from './settings-catalogue.js';
import { SETTING_CHANGED, type SettingChangedEvent } from '../../kernel/sdk.js';

const PUBLIC_KEYS = new Set(PUBLIC_SETTINGS.map((s) => s.key));

/** What the service needs of the registry: whether a key's value may travel on the event bus. */
interface KnownSettings {
  get(key: string): { isPrivate: boolean } | undefined;
}

/**
 * System settings (cms_settings): JSON values per tenant; private ones never leave the server.
 * Every set() publishes SETTING_CHANGED on the event bus (every instance when Redis is configured),
 * with the new value for public settings only, so plugins can keep a setting in memory.
 */
export class SettingsService {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly events?: { publish(name: string, payload: unknown): Promise<void> },
    private readonly registry?: KnownSettings,
  ) {}

  /** Seeded public settings and declared settings that are not private: their new value travels with SETTING_CHANGED. */
  private isPublic(key: string): boolean {
    if (PUBLIC_KEYS.has(key)) return true;
    const def = this.registry?.get(key);
    return def !== undefined && !def.isPrivate;
  }

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
    await this.setMany({ [key]: value }, tenantId);
  }

  /** Every stored value of a tenant (key -> value); keys without a row are absent. */
  async valuesFor(tenantId: string): Promise<Map<string, unknown>> {
    const rows = await this.sequelize.query<{ key: string; value: string }>('SELECT `key`, value FROM cms_settings WHERE tenant_id = ?', {
      replacements: [tenantId],
      type: QueryTypes.SELECT,
    });
    return new Map(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
  }

  /**
   * Writes several settings of one tenant in one transaction (a row is added where the tenant has none:
   * declared settings, another tenant's first change), then announces each as SETTING_CHANGED once
   * committed. The caller has validated the values; nothing is written when any write fails.
   */
  async setMany(values: Record<string, unknown>, tenantId = 'default'): Promise<void> {
    const entries = Object.entries(values);
    if (!entries.length) return;
    const now = Date.now();
    await this.sequelize.transaction(async (transaction) => {
      const existing = new Set(
        (
          await this.sequelize.query<{ key: string }>('SELECT `key` FROM cms_settings WHERE tenant_id = ? AND `key` IN (?)', {
            replacements: [tenantId, entries.map(([k]) => k)],
            type: QueryTypes.SELECT,
            transaction,
          })
        ).map((r) => r.key),
      );
      for (const [key, value] of entries) {
        if (existing.has(key)) {
          await this.sequelize.query('UPDATE cms_settings SET value = ?, updated_at = ? WHERE tenant_id = ? AND `key` = ?', {
            replacements: [JSON.stringify(value), now, tenantId, key],
            transaction,
          });
        } else {
          await this.sequelize.query('INSERT INTO cms_settings (tenant_id, `key`, value, is_private, updated_at) VALUES (?, ?, ?, ?, ?)', {
            replacements: [tenantId, key, JSON.stringify(value), !this.isPublic(key), now],
            transaction,
          });
        }
      }
    });
    for (const [key, value] of entries) {
      const event: SettingChangedEvent = { tenantId, key, ...(this.isPublic(key) ? { value } : {}) };
      await this.events?.publish(SETTING_CHANGED, event);
    }
  }

  /**
   * Announces settings written around this service (configuration sync, restore) as SETTING_CHANGED,
   * after their transaction committed: the value is read again and sent for public settings only.
   */
  async changed(tenantId: string, keys: string[]): Promise<void> {
    if (!this.events) return;
    for (const key of keys) {
      const value = this.isPublic(key) ? await this.get(key, tenantId) : undefined;
      const event: SettingChangedEvent = { tenantId, key, ...(value !== undefined ? { value } : {}) };
      await this.events.publish(SETTING_CHANGED, event);
    }
  }

  /** One setting's value in every tenant that has it (tenant id -> value): for plugins that keep it in memory. */
  async valuesOf<T = unknown>(key: string): Promise<Map<string, T>> {
    const rows = await this.sequelize.query<{ tenant_id: string; value: string }>(
      'SELECT tenant_id, value FROM cms_settings WHERE `key` = ?',
      { replacements: [key], type: QueryTypes.SELECT },
    );
    return new Map(rows.map((r) => [r.tenant_id, JSON.parse(r.value) as T]));
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

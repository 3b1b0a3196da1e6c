/**
 * The channels of a tenant (table cms_content_sync_channels). The API key is stored encrypted
 * (ChannelSecrets) and decrypted only to call the remote: list and view answers never carry it.
 */
import { randomUUID } from 'node:crypto';
import { QueryTypes, UniqueConstraintError, type Sequelize } from 'sequelize';
import type { ChannelSecrets } from './channel-secrets.js';
import { SyncChannelExistsError, SyncChannelNotFoundError } from './errors.js';

/** A channel as the API shows it (never the key). */
export interface ChannelView {
  channelId: string;
  name: string;
  url: string;
  remoteInstallationId: string | null;
  createdAt: string;
}

/** A channel with its key, for calls to the remote only. */
export interface ChannelWithKey extends ChannelView {
  apiKey: string;
}

interface Row {
  id: string;
  name: string;
  url: string;
  api_key: string;
  remote_installation_id: string | null;
  created_at: number | string;
}

const view = (r: Row): ChannelView => ({
  channelId: r.id,
  name: r.name,
  url: r.url,
  remoteInstallationId: r.remote_installation_id,
  createdAt: new Date(Number(r.created_at)).toISOString(),
});

export class ChannelStore {
  constructor(
    private readonly sequelize: () => Sequelize,
    private readonly secrets: ChannelSecrets,
  ) {}

  async list(tenantId: string): Promise<ChannelView[]> {
    const rows = await this.sequelize().query<Row>(
      'SELECT id, name, url, api_key, remote_installation_id, created_at FROM cms_content_sync_channels WHERE tenant_id = ? ORDER BY name',
      { replacements: [tenantId], type: QueryTypes.SELECT },
    );
    return rows.map(view);
  }

  private async row(tenantId: string, channelId: string): Promise<Row> {
    const rows =
      typeof channelId === 'string' && channelId.length <= 36
        ? await this.sequelize().query<Row>(
            'SELECT id, name, url, api_key, remote_installation_id, created_at FROM cms_content_sync_channels WHERE tenant_id = ? AND id = ?',
            { replacements: [tenantId, channelId], type: QueryTypes.SELECT },
          )
        : [];
    if (!rows[0]) throw new SyncChannelNotFoundError(String(channelId));
    return rows[0];
  }

  async get(tenantId: string, channelId: string): Promise<ChannelView> {
    return view(await this.row(tenantId, channelId));
  }

  async withKey(tenantId: string, channelId: string): Promise<ChannelWithKey> {
    const r = await this.row(tenantId, channelId);
    return { ...view(r), apiKey: await this.secrets.decrypt(r.api_key, r.id) };
  }

  async create(
    tenantId: string,
    input: { name: string; url: string; apiKey: string; remoteInstallationId: string | null; createdBy: string | null },
  ): Promise<ChannelView> {
    const id = randomUUID();
    const now = Date.now();
    const sealed = await this.secrets.encrypt(input.apiKey, id);
    try {
      await this.sequelize().query(
        'INSERT INTO cms_content_sync_channels (id, tenant_id, name, url, api_key, remote_installation_id, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        { replacements: [id, tenantId, input.name, input.url, sealed, input.remoteInstallationId, input.createdBy, now, now] },
      );
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new SyncChannelExistsError(input.name);
      throw err;
    }
    return this.get(tenantId, id);
  }

  async nameTaken(tenantId: string, name: string): Promise<boolean> {
    const rows = await this.sequelize().query('SELECT id FROM cms_content_sync_channels WHERE tenant_id = ? AND name = ?', {
      replacements: [tenantId, name],
      type: QueryTypes.SELECT,
    });
    return rows.length > 0;
  }

  async setRemoteInstallation(tenantId: string, channelId: string, remoteInstallationId: string): Promise<void> {
    await this.sequelize().query(
      'UPDATE cms_content_sync_channels SET remote_installation_id = ?, updated_at = ? WHERE tenant_id = ? AND id = ?',
      { replacements: [remoteInstallationId, Date.now(), tenantId, channelId] },
    );
  }

  async delete(tenantId: string, channelId: string): Promise<void> {
    await this.row(tenantId, channelId);
    await this.sequelize().query('DELETE FROM cms_content_sync_channels WHERE tenant_id = ? AND id = ?', {
      replacements: [tenantId, channelId],
    });
  }
}

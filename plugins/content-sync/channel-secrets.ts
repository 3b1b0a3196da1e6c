/**
 * Encryption at rest of the channels' API keys (kernel/sealed-secrets.ts): the key from ENCRYPTION_KEY, else
 * generated once into cms_content_sync_secrets; the channel id is the additional authenticated data.
 */
import type { Sequelize } from 'sequelize';
import { SealedSecrets } from '../../kernel/sdk.js';

export class ChannelSecrets extends SealedSecrets {
  constructor(sequelize: () => Sequelize, configured: string | undefined) {
    super(sequelize, configured, { table: 'cms_content_sync_secrets', keyName: 'channel-key', what: 'channel key' });
  }
}

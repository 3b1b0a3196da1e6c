/**
 * The webhooks' signing secrets at rest (kernel/sealed-secrets.ts): the key from ENCRYPTION_KEY, else generated
 * once into cms_webhook_keys. The secret must be read back to sign each delivery, so it is encrypted, not
 * hashed; the webhook id is the additional authenticated data.
 */
import { randomBytes } from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { SealedSecrets } from '../../kernel/sdk.js';

/** A new signing secret: 32 random bytes, `whsec_` and base64url (the receiver keys its HMAC with the whole text). */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

export class WebhookSecrets extends SealedSecrets {
  constructor(sequelize: () => Sequelize, configured: string | undefined) {
    super(sequelize, configured, { table: 'cms_webhook_keys', keyName: 'secret-key', what: 'webhook secret' });
  }
}

/**
 * The webhooks' signing secrets at rest: AES-256-GCM, the key derived (SHA-256) from
 * `config.secrets.encryptionKey` (ENCRYPTION_KEY) when set, otherwise from a random key generated once
 * into cms_webhook_keys (shared by every instance on the database), as content-sync keeps its channels'
 * keys. The secret must be read back to sign each delivery, so it is encrypted, not hashed. Ciphertext
 * format: `v1.<base64url(iv 12 bytes | tag 16 bytes | ciphertext)>`; the webhook id is the additional
 * authenticated data, so a ciphertext copied onto another webhook does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';

const KEY_NAME = 'secret-key';

/** A new signing secret: 32 random bytes, `whsec_` and base64url (the receiver keys its HMAC with the whole text). */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

export class WebhookSecrets {
  private key: Promise<Buffer> | null = null;

  constructor(
    private readonly sequelize: () => Sequelize,
    private readonly configured: string | undefined,
  ) {}

  private load(): Promise<Buffer> {
    this.key ??= (async () => {
      if (this.configured) return createHash('sha256').update(this.configured).digest();
      const read = async () =>
        (
          await this.sequelize().query<{ value: string }>('SELECT value FROM cms_webhook_keys WHERE name = ?', {
            replacements: [KEY_NAME],
            type: QueryTypes.SELECT,
          })
        )[0]?.value;
      let value = await read();
      if (!value) {
        try {
          await this.sequelize().query('INSERT INTO cms_webhook_keys (name, value, created_at) VALUES (?, ?, ?)', {
            replacements: [KEY_NAME, randomBytes(32).toString('base64url'), Date.now()],
          });
        } catch {
          // another instance generated it first
        }
        value = await read();
      }
      if (!value) throw new Error('cms_webhook_keys has no key');
      return createHash('sha256').update(value).digest();
    })().catch((err) => {
      this.key = null;
      throw err;
    });
    return this.key;
  }

  async encrypt(plain: string, webhookId: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.load(), iv);
    cipher.setAAD(Buffer.from(webhookId, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  async decrypt(sealed: string, webhookId: string): Promise<string> {
    if (!sealed.startsWith('v1.')) throw new Error('unknown webhook secret ciphertext format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', await this.load(), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(webhookId, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

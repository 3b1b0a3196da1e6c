/**
 * Encryption at rest of the channels' API keys: AES-256-GCM, the key derived (SHA-256) from
 * `config.secrets.encryptionKey` (ENCRYPTION_KEY) when set, otherwise from a random key generated once
 * into cms_content_sync_secrets (shared by every instance on the database). Ciphertext format:
 * `v1.<base64url(iv 12 bytes | tag 16 bytes | ciphertext)>`; the channel id is the additional
 * authenticated data, so a ciphertext copied onto another channel does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';

const KEY_NAME = 'channel-key';

export class ChannelSecrets {
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
          await this.sequelize().query<{ value: string }>('SELECT value FROM cms_content_sync_secrets WHERE name = ?', {
            replacements: [KEY_NAME],
            type: QueryTypes.SELECT,
          })
        )[0]?.value;
      let value = await read();
      if (!value) {
        try {
          await this.sequelize().query('INSERT INTO cms_content_sync_secrets (name, value, created_at) VALUES (?, ?, ?)', {
            replacements: [KEY_NAME, randomBytes(32).toString('base64url'), Date.now()],
          });
        } catch {
          // another instance generated it first
        }
        value = await read();
      }
      if (!value) throw new Error('cms_content_sync_secrets has no channel key');
      return createHash('sha256').update(value).digest();
    })().catch((err) => {
      this.key = null;
      throw err;
    });
    return this.key;
  }

  async encrypt(plain: string, channelId: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.load(), iv);
    cipher.setAAD(Buffer.from(channelId, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  async decrypt(sealed: string, channelId: string): Promise<string> {
    if (!sealed.startsWith('v1.')) throw new Error('unknown channel key ciphertext format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', await this.load(), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(channelId, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

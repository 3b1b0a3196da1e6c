/**
 * Secrets a plugin must read back later (content-sync channel keys, webhook signing secrets), encrypted at
 * rest: AES-256-GCM, the key derived (SHA-256) from `config.secrets.encryptionKey` (ENCRYPTION_KEY) when set,
 * otherwise from a random key generated once into the plugin's key table (shared by every instance on the
 * database; the first instance to insert it wins). Ciphertext format:
 * `v1.<base64url(iv 12 bytes | tag 16 bytes | ciphertext)>`; the owner's id (channel, webhook) is the
 * additional authenticated data, so a ciphertext copied onto another owner does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';

export interface SealedSecretsOptions {
  /** The plugin's key table: columns name, value, created_at (a constant of the plugin, never input). */
  table: string;
  /** The key's row name in that table. */
  keyName: string;
  /** What is sealed, for error messages ("channel key", "webhook secret"). */
  what: string;
}

export class SealedSecrets {
  private key: Promise<Buffer> | null = null;

  constructor(
    private readonly sequelize: () => Sequelize,
    private readonly configured: string | undefined,
    private readonly options: SealedSecretsOptions,
  ) {}

  private load(): Promise<Buffer> {
    const { table, keyName } = this.options;
    this.key ??= (async () => {
      if (this.configured) return createHash('sha256').update(this.configured).digest();
      const read = async () =>
        (
          await this.sequelize().query<{ value: string }>(`SELECT value FROM ${table} WHERE name = ?`, {
            replacements: [keyName],
            type: QueryTypes.SELECT,
          })
        )[0]?.value;
      let value = await read();
      if (!value) {
        try {
          await this.sequelize().query(`INSERT INTO ${table} (name, value, created_at) VALUES (?, ?, ?)`, {
            replacements: [keyName, randomBytes(32).toString('base64url'), Date.now()],
          });
        } catch {
          // another instance generated it first
        }
        value = await read();
      }
      if (!value) throw new Error(`${table} has no ${keyName}`);
      return createHash('sha256').update(value).digest();
    })().catch((err) => {
      this.key = null;
      throw err;
    });
    return this.key;
  }

  async encrypt(plain: string, ownerId: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.load(), iv);
    cipher.setAAD(Buffer.from(ownerId, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  async decrypt(sealed: string, ownerId: string): Promise<string> {
    if (!sealed.startsWith('v1.')) throw new Error(`unknown ${this.options.what} ciphertext format`);
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', await this.load(), raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(ownerId, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * The auth plugin's keys: the HMAC key of re-authentication proofs and pending-login cookies, and the
 * AES-256-GCM key for TOTP secrets (ENCRYPTION_KEY when set, as the setup's private config will provide;
 * otherwise a random key generated into auth_secrets, shared by every instance on the database).
 */
export class AuthSecrets {
  private readonly loaded = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly secrets: { jwtSecretKey?: string; encryptionKey?: string },
  ) {}

  private key(name: 'reauth' | 'encryption'): Promise<Buffer> {
    let key = this.loaded.get(name);
    if (!key) {
      const fromEnv = name === 'encryption' ? this.secrets.encryptionKey : this.secrets.jwtSecretKey;
      key = fromEnv
        ? Promise.resolve(createHash('sha256').update(fromEnv).digest())
        : this.sequelize
            .query<{ value: string }>('SELECT value FROM auth_secrets WHERE name = ?', { replacements: [name], type: QueryTypes.SELECT })
            .then((rows) => {
              if (!rows[0]) throw new Error(`auth_secrets has no '${name}' key`);
              return createHash('sha256').update(rows[0].value).digest();
            });
      this.loaded.set(name, key);
    }
    return key;
  }

  async sign(text: string): Promise<string> {
    return createHmac('sha256', await this.key('reauth'))
      .update(text)
      .digest('base64url');
  }

  /** Compares the text of the signatures (decoding first would let a changed padding character pass). */
  async verifySignature(text: string, signature: string): Promise<boolean> {
    const expected = Buffer.from(await this.sign(text), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  async encrypt(plain: string): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', await this.key('encryption'), iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  async decrypt(sealed: string): Promise<string> {
    if (!sealed.startsWith('v1.')) throw new Error('unknown ciphertext format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', await this.key('encryption'), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

import { randomInt, timingSafeEqual } from 'node:crypto';
import { generateSecret, generateURI, verify as verifyTotp } from 'otplib';
import { Op, QueryTypes } from 'sequelize';
import { InternalError, ValidationError, type WorkerPool, modelsOf, type ModelMap } from '../../kernel/sdk.js';
import { User } from './models/user.js';
import type { AuthSecrets } from './secrets.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const BACKUP_CODES = 10;
/** ±1 period of 30 s. */
const TOLERANCE_SECONDS = 30;

export interface SetupBundle {
  secret: string;
  qrCodeURL: string;
  manualEntryDetails: { issuer: string; account: string; secret: string; algorithm: 'SHA1'; digits: 6; period: 30 };
  backupCodes: string[];
}

/** `used`: the code is right but was accepted before (a backup code already spent, a TOTP code of an accepted step). */
export type CodeCheck = { ok: true; method: 'totp' | 'backup'; remaining?: number } | { ok: false; method: 'totp' | 'backup'; used?: true };

/**
 * A spent backup code stays in the stored list as its hash behind this mark, so presenting it again can be
 * answered "already used" rather than "invalid"; it never verifies again and is not counted as remaining.
 * Regenerating replaces the whole list (old codes, spent or not, are then simply invalid).
 */
const SPENT = 'spent:';
const unspent = (hashes: string[]) => hashes.filter((h) => !h.startsWith(SPENT));

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function newBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODES }, () => Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''));
}

/**
 * TOTP two-factor authentication (SHA1, 6 digits, 30 s, ±1 period) with 10 single-use backup codes.
 * The secret is stored AES-256-GCM encrypted; backup codes are argon2id hashes (64 MiB, in the worker
 * pool). A TOTP code is accepted once: its time step must be later than the last accepted one.
 */
export class TwoFactorService {
  private readonly models: { User: typeof User };

  constructor(
    models: ModelMap,
    private readonly pool: WorkerPool,
    private readonly secrets: AuthSecrets,
    /** The issuer authenticator apps show for a tenant's accounts (its site name by default). */
    private readonly issuerOf: (tenantId: string) => Promise<string>,
  ) {
    this.models = modelsOf(models, { User });
  }

  private async hashCodes(codes: string[]): Promise<string[]> {
    const results = await Promise.all(codes.map((c) => this.pool.argon2Hash(c)));
    return results.map((r) => {
      if (!r.ok) throw new InternalError(new Error(r.issues[0]!.message));
      return r.value;
    });
  }

  /** Issues a secret and backup codes; nothing is active until verify-setup. */
  async setup(user: User): Promise<SetupBundle> {
    if (user.two_factor_enabled) throw new ValidationError('2FA is already enabled');
    const secret = generateSecret();
    const backupCodes = newBackupCodes();
    const payload = await this.secrets.encrypt(JSON.stringify({ secret, backupCodes }));
    const sequelize = this.models.User.sequelize!;
    await sequelize.query('DELETE FROM auth_2fa_pending WHERE user_id = ?', { replacements: [user.id] });
    await sequelize.query('INSERT INTO auth_2fa_pending (user_id, payload, created_at) VALUES (?, ?, ?)', {
      replacements: [user.id, payload, Date.now()],
    });
    const issuer = await this.issuerOf(user.tenant_id ?? 'default');
    return {
      secret,
      qrCodeURL: generateURI({ issuer, label: user.email, secret }),
      manualEntryDetails: { issuer, account: user.email, secret, algorithm: 'SHA1', digits: 6, period: 30 },
      backupCodes,
    };
  }

  async verifySetup(user: User, input: { secret: string; verificationCode: string; backupCodes: string[] }): Promise<void> {
    if (user.two_factor_enabled) throw new ValidationError('2FA is already enabled');
    const rows = await this.models.User.sequelize!.query<{ payload: string; created_at: number }>(
      'SELECT payload, created_at FROM auth_2fa_pending WHERE user_id = ?',
      {
        replacements: [user.id],
        type: QueryTypes.SELECT,
      },
    );
    if (!rows[0] || Date.now() - Number(rows[0].created_at) > 30 * 60 * 1000)
      throw new ValidationError('No 2FA setup is pending; start again');
    const issued = JSON.parse(await this.secrets.decrypt(rows[0].payload)) as { secret: string; backupCodes: string[] };
    if (!sameText(issued.secret, input.secret)) throw new ValidationError('The secret does not match the one issued by setup');
    const given = [...new Set(input.backupCodes.map((c) => c.trim().toUpperCase()))].sort();
    if (given.join() !== [...issued.backupCodes].sort().join())
      throw new ValidationError('The backup codes do not match the ones issued by setup');
    const result = await verifyTotp({ secret: issued.secret, token: input.verificationCode, epochTolerance: TOLERANCE_SECONDS }).catch(
      () => ({ valid: false as const }),
    );
    if (!result.valid) throw new ValidationError('Invalid verification code');
    const hashes = await this.hashCodes(issued.backupCodes);
    await this.models.User.update(
      {
        two_factor_enabled: true,
        totp_secret: await this.secrets.encrypt(issued.secret),
        backup_codes: JSON.stringify(hashes),
        last_totp_step: 'timeStep' in result ? result.timeStep : null,
        last_2fa_verification: Date.now(),
      },
      { where: { id: user.id } },
    );
    await this.models.User.sequelize!.query('DELETE FROM auth_2fa_pending WHERE user_id = ?', { replacements: [user.id] });
  }

  /** Checks a TOTP code (once per time step) or a backup code (consumed); never throws for a wrong code. */
  async checkCode(userId: string, rawCode: string): Promise<CodeCheck> {
    const code = rawCode.replace(/\s+/g, '');
    const method = /^\d{6}$/.test(code) ? 'totp' : 'backup';
    const user = await this.models.User.findByPk(userId);
    if (!user?.two_factor_enabled || !user.totp_secret) return { ok: false, method };
    if (method === 'totp') {
      const secret = await this.secrets.decrypt(user.totp_secret);
      const last = user.last_totp_step === null ? undefined : Number(user.last_totp_step);
      const result = await verifyTotp({ secret, token: code, epochTolerance: TOLERANCE_SECONDS, afterTimeStep: last }).catch(() => ({
        valid: false as const,
      }));
      if (!result.valid || !('timeStep' in result)) {
        // Valid but at or before the accepted step: the code was used already (said so, it still fails).
        if (last === undefined) return { ok: false, method };
        const again = await verifyTotp({ secret, token: code, epochTolerance: TOLERANCE_SECONDS }).catch(() => ({ valid: false as const }));
        return again.valid ? { ok: false, method, used: true } : { ok: false, method };
      }
      // Claim the time step atomically: the same code presented twice (even concurrently) passes once.
      const [claimed] = await this.models.User.update(
        { last_totp_step: result.timeStep, last_2fa_verification: Date.now() },
        { where: { id: userId, [Op.or]: [{ last_totp_step: null }, { last_totp_step: { [Op.lt]: result.timeStep } }] } },
      );
      return claimed === 1 ? { ok: true, method } : { ok: false, method, used: true };
    }
    if (!/^[A-Za-z0-9]{8}$/.test(code)) return { ok: false, method };
    // Compare-and-swap on the stored list, retried when another code changed it meanwhile: the same
    // code used twice at once is consumed once, and two different codes at once both work.
    for (let attempt = 0, stored = user.backup_codes; attempt < 5 && stored; attempt++) {
      const hashes = JSON.parse(stored) as string[];
      let index = -1;
      for (let i = 0; i < hashes.length && index < 0; i++) {
        const match = await this.pool.argon2Verify(code.toUpperCase(), hashes[i]!.replace(SPENT, ''));
        if (match.ok && match.value) index = i;
      }
      if (index < 0) return { ok: false, method };
      if (hashes[index]!.startsWith(SPENT)) return { ok: false, method, used: true };
      const next = hashes.map((h, j) => (j === index ? SPENT + h : h));
      const [consumed] = await this.models.User.update(
        { backup_codes: JSON.stringify(next), last_2fa_verification: Date.now() },
        { where: { id: userId, backup_codes: stored } },
      );
      if (consumed === 1) return { ok: true, method, remaining: unspent(next).length };
      stored = (await this.models.User.findByPk(userId))?.backup_codes ?? null;
    }
    return { ok: false, method };
  }

  async disable(user: User): Promise<void> {
    if (!user.two_factor_enabled) throw new ValidationError('2FA is not enabled');
    await this.models.User.update(
      { two_factor_enabled: false, totp_secret: null, backup_codes: null, last_totp_step: null },
      { where: { id: user.id } },
    );
  }

  async regenerate(user: User): Promise<string[]> {
    if (!user.two_factor_enabled) throw new ValidationError('2FA is not enabled');
    const codes = newBackupCodes();
    await this.models.User.update({ backup_codes: JSON.stringify(await this.hashCodes(codes)) }, { where: { id: user.id } });
    return codes;
  }

  status(user: User) {
    const count = user.backup_codes ? unspent(JSON.parse(user.backup_codes) as string[]).length : 0;
    return {
      enabled: user.two_factor_enabled,
      hasBackupCodes: count > 0,
      backupCodesCount: count,
      lastVerification: user.last_2fa_verification === null ? null : new Date(Number(user.last_2fa_verification)).toISOString(),
    };
  }
}

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { DataTypes, Model, Op, UniqueConstraintError, type Sequelize } from 'sequelize';

/** A security advisory as the update server sends it (`affected` a semver range). */
export interface Advisory {
  id: string;
  severity: string;
  affected: string;
  fixedIn: string | null;
  summary: string;
}

/** The stored result of the last successful check. */
export interface CheckResult {
  currentVersion: string;
  latestVersion: string;
  updateAvailable: boolean;
  advisories: Advisory[];
  checkedAt: string;
}

export interface StoredState {
  installationId: string | null;
  hasSecret: boolean;
  lastAttemptAt: string | null;
  lastError: string | null;
  result: CheckResult | null;
  announced: string | null;
}

class StateRow extends Model {
  declare id: number;
  declare installation_id: string | null;
  declare secret: string | null;
  declare last_attempt_at: number | string | null;
  declare claimed_by: string | null;
  declare checked_at: number | string | null;
  declare current_version: string | null;
  declare latest_version: string | null;
  declare update_available: boolean | number | null;
  declare advisories: string | null;
  declare last_error: string | null;
  declare announced: string | null;
}

const ROW = 1;
const iso = (ms: number | string | null) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

/**
 * The update check's one row (update_check_state), shared by every instance on the database: the
 * installation id, the registration secret (AES-256-GCM), the claim of the current period and the
 * last result. A period is claimed with a compare-and-swap UPDATE, so exactly one instance checks.
 */
export class UpdateCheckStore {
  private readonly model: typeof StateRow;

  constructor(
    sequelize: Sequelize,
    /** Key material of the secret's encryption: ENCRYPTION_KEY when set, else the instance's signing key. */
    private readonly keyMaterial: () => string,
  ) {
    this.model = class extends StateRow {};
    this.model.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true },
        installation_id: DataTypes.STRING(64),
        secret: DataTypes.TEXT,
        last_attempt_at: DataTypes.BIGINT,
        claimed_by: DataTypes.STRING(64),
        checked_at: DataTypes.BIGINT,
        current_version: DataTypes.STRING(64),
        latest_version: DataTypes.STRING(64),
        update_available: DataTypes.BOOLEAN,
        advisories: DataTypes.TEXT,
        last_error: DataTypes.STRING(500),
        announced: DataTypes.STRING(191),
      },
      { sequelize, tableName: 'update_check_state', modelName: 'UpdateCheckState', timestamps: false },
    );
  }

  private async row(): Promise<StateRow> {
    const found = await this.model.findByPk(ROW);
    if (found) return found;
    try {
      await this.model.create({ id: ROW });
    } catch (err) {
      if (!(err instanceof UniqueConstraintError)) throw err;
    }
    // Read back: every column with its stored value (null), whoever created the row.
    return (await this.model.findByPk(ROW))!;
  }

  async state(): Promise<StoredState> {
    const row = await this.row();
    let advisories: Advisory[] = [];
    try {
      advisories = row.advisories ? (JSON.parse(row.advisories) as Advisory[]) : [];
    } catch {
      advisories = [];
    }
    return {
      installationId: row.installation_id,
      hasSecret: Boolean(row.secret),
      lastAttemptAt: iso(row.last_attempt_at),
      lastError: row.last_error,
      announced: row.announced,
      result:
        row.checked_at !== null && row.latest_version
          ? {
              currentVersion: row.current_version ?? '',
              latestVersion: row.latest_version,
              updateAvailable: Boolean(Number(row.update_available)),
              advisories,
              checkedAt: iso(row.checked_at)!,
            }
          : null,
    };
  }

  /** The installation id every instance uses: the first one written wins (derived from that instance's signing key). */
  async installationId(candidate: string): Promise<string> {
    const row = await this.row();
    if (row.installation_id) return row.installation_id;
    await this.model.update({ installation_id: candidate }, { where: { id: ROW, installation_id: null } });
    return (await this.model.findByPk(ROW))!.installation_id ?? candidate;
  }

  /** Claims the period: true for exactly one caller while no check was attempted within `periodMs`. */
  async claim(owner: string, periodMs: number, now = Date.now()): Promise<boolean> {
    await this.row();
    const [changed] = await this.model.update(
      { last_attempt_at: now, claimed_by: owner },
      { where: { id: ROW, [Op.or]: [{ last_attempt_at: null }, { last_attempt_at: { [Op.lte]: now - periodMs } }] } },
    );
    return changed === 1;
  }

  /** When the current period (of whichever instance claimed it) ends; null when nothing was attempted. */
  async periodEndsAt(periodMs: number): Promise<number | null> {
    const row = await this.row();
    return row.last_attempt_at === null ? null : Number(row.last_attempt_at) + periodMs;
  }

  /** After a failure: the next claim is possible `retryMs` from now instead of a whole period. */
  async failed(error: string, periodMs: number, retryMs: number, now = Date.now()): Promise<void> {
    await this.row();
    await this.model.update(
      { last_error: error.slice(0, 500), last_attempt_at: now - periodMs + Math.min(retryMs, periodMs) },
      { where: { id: ROW } },
    );
  }

  async saveResult(result: CheckResult): Promise<void> {
    await this.row();
    await this.model.update(
      {
        checked_at: Date.parse(result.checkedAt),
        current_version: result.currentVersion.slice(0, 64),
        latest_version: result.latestVersion.slice(0, 64),
        update_available: result.updateAvailable,
        advisories: JSON.stringify(result.advisories),
        last_error: null,
      },
      { where: { id: ROW } },
    );
  }

  async setAnnounced(key: string): Promise<void> {
    await this.row();
    await this.model.update({ announced: key.slice(0, 191) }, { where: { id: ROW } });
  }

  private key(): Buffer {
    return createHash('sha256').update('update-check-secret:').update(this.keyMaterial()).digest();
  }

  /** The registration secret, or null when there is none or it cannot be decrypted (a new registration follows). */
  async secret(): Promise<string | null> {
    const row = await this.row();
    if (!row.secret?.startsWith('v1.')) return null;
    try {
      const raw = Buffer.from(row.secret.slice(3), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', this.key(), raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  async setSecret(secret: string | null): Promise<void> {
    let sealed: string | null = null;
    if (secret !== null) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', this.key(), iv);
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      sealed = `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    }
    await this.row();
    await this.model.update({ secret: sealed }, { where: { id: ROW } });
  }

  /** Tests and operators: forget the stored result and claim (the next check runs at once). */
  async reset(): Promise<void> {
    await this.row();
    await this.model.update(
      {
        last_attempt_at: null,
        claimed_by: null,
        checked_at: null,
        latest_version: null,
        current_version: null,
        update_available: null,
        advisories: null,
        last_error: null,
      },
      { where: { id: ROW } },
    );
  }
}

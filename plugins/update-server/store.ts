import { randomBytes } from 'node:crypto';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { verifyUpdateSignature } from '../../lib/text/update-signature.js';
import { InvalidSignatureError, ReplayedRequestError, UnknownInstallationError } from './errors.js';
import { installationSecret, type ServerKeys } from './keys.js';
import type { UpdateServerOptions } from './options.js';
import type { UpdateCheckPayload } from './payload.js';

export interface CheckInput {
  /** The payload exactly as received (what the signature covers). */
  raw: Record<string, unknown>;
  /** The same payload, validated. */
  payload: UpdateCheckPayload;
  signature: string;
  timestamp: number;
  ipHash: string;
  now: number;
}

export type CheckOutcome = { kind: 'accepted' } | { kind: 'limited'; retryAfterSeconds: number };

export interface StatsRow {
  value: string;
  count: number;
}

export interface UpdateServerStats {
  registered: number;
  reporting: number;
  byVersion: StatsRow[];
  byDbType: StatsRow[];
  byCountry: StatsRow[];
}

const STATS_GROUPS = 500;

/**
 * The update server's storage (its own tables in its own database): registrations, accepted checks
 * and the per-IP check window. Each check runs in one transaction (SQLite: the write gate; MariaDB:
 * row locks), so a replay and the rate window are decided once even under concurrency.
 */
export class UpdateServerStore {
  private readonly mariadb: boolean;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly keys: ServerKeys,
    private readonly options: UpdateServerOptions,
  ) {
    this.mariadb = sequelize.getDialect() !== 'sqlite';
  }

  private select<T extends object>(sql: string, replacements: unknown[], transaction?: Transaction): Promise<T[]> {
    return this.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction });
  }

  private async write(sql: string, replacements: unknown[], transaction?: Transaction): Promise<void> {
    await this.sequelize.query(sql, { replacements, transaction });
  }

  private upsert(table: string, key: string, columns: string[]): string {
    const all = [key, ...columns];
    const insert = `INSERT INTO ${table} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})`;
    return this.mariadb
      ? `${insert} ON DUPLICATE KEY UPDATE ${columns.map((c) => `${c} = VALUES(${c})`).join(', ')}`
      : `${insert} ON CONFLICT(${key}) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}`;
  }

  /** Registers an installation, or rotates its secret: a new nonce, so the previous secret stops verifying. */
  async register(installationId: string, now: number): Promise<string> {
    const nonce = randomBytes(16).toString('hex');
    const existing = await this.select<{ id: string }>('SELECT id FROM update_server_installations WHERE id = ?', [installationId]);
    if (existing.length)
      await this.write('UPDATE update_server_installations SET secret_nonce = ?, secret_rotated_at = ? WHERE id = ?', [
        nonce,
        now,
        installationId,
      ]);
    else
      await this.write(this.upsert('update_server_installations', 'id', ['secret_nonce', 'registered_at', 'secret_rotated_at']), [
        installationId,
        nonce,
        now,
        now,
      ]);
    return installationSecret(this.keys.secretKey, installationId, nonce);
  }

  /**
   * Verifies and records one check: unknown installation, wrong signature and a replay (a timestamp not
   * later than the last accepted one of the installation) throw their 403; a client inside its window
   * gets `limited` (the timestamp is still recorded, so the envelope cannot be replayed from elsewhere).
   */
  async check(input: CheckInput): Promise<CheckOutcome> {
    const lock = this.mariadb ? ' FOR UPDATE' : '';
    const id = input.payload.installation_id;
    return this.sequelize.transaction(async (transaction) => {
      const [row] = await this.select<{ secret_nonce: string; last_check_ts: number | string | null }>(
        `SELECT secret_nonce, last_check_ts FROM update_server_installations WHERE id = ?${lock}`,
        [id],
        transaction,
      );
      if (!row) throw new UnknownInstallationError();
      let valid = false;
      try {
        valid = verifyUpdateSignature(
          installationSecret(this.keys.secretKey, id, row.secret_nonce),
          input.timestamp,
          input.raw,
          input.signature,
        );
      } catch {
        valid = false; // a payload without a canonical form cannot carry a valid signature
      }
      if (!valid) throw new InvalidSignatureError();
      if (row.last_check_ts !== null && input.timestamp <= Number(row.last_check_ts)) throw new ReplayedRequestError();
      await this.write('UPDATE update_server_installations SET last_check_ts = ? WHERE id = ?', [input.timestamp, id], transaction);

      const interval = this.options.checkIntervalSeconds * 1000;
      if (interval > 0) {
        const [rate] = await this.select<{ next_allowed_at: number | string }>(
          `SELECT next_allowed_at FROM update_server_rate WHERE ip_hash = ?${lock}`,
          [input.ipHash],
          transaction,
        );
        const next = rate ? Number(rate.next_allowed_at) : 0;
        if (next > input.now) return { kind: 'limited', retryAfterSeconds: Math.max(1, Math.ceil((next - input.now) / 1000)) } as const;
        await this.write(
          this.upsert('update_server_rate', 'ip_hash', ['next_allowed_at']),
          [input.ipHash, input.now + interval],
          transaction,
        );
      }

      const p = input.payload;
      const country =
        typeof p.location.country_code === 'string' && /^[A-Za-z]{2}$/.test(p.location.country_code)
          ? p.location.country_code.toUpperCase()
          : null;
      await this.write(
        `UPDATE update_server_installations SET first_seen = COALESCE(first_seen, ?), last_seen = ?, current_version = ?, db_type = ?,
           country = ?, environment = ?, is_ephemeral = ? WHERE id = ?`,
        [input.now, input.now, p.current_version, p.db_type.slice(0, 32), country, p.environment.slice(0, 32), p.is_ephemeral, id],
        transaction,
      );
      await this.write(
        'INSERT INTO update_server_checks (installation_id, at, version, ip_hash) VALUES (?, ?, ?, ?)',
        [id, input.now, p.current_version, input.ipHash],
        transaction,
      );
      return { kind: 'accepted' } as const;
    });
  }

  /** Counts only: installations that reported at least once (since `sinceMs`), by version, database type and country. */
  async stats(sinceMs?: number): Promise<UpdateServerStats> {
    const where = sinceMs === undefined ? 'last_seen IS NOT NULL' : 'last_seen >= ?';
    const args = sinceMs === undefined ? [] : [sinceMs];
    const group = async (column: string): Promise<StatsRow[]> => {
      const rows = await this.select<{ value: string | null; count: number | string }>(
        `SELECT ${column} AS value, COUNT(*) AS count FROM update_server_installations WHERE ${where}
         GROUP BY ${column} ORDER BY COUNT(*) DESC, ${column} LIMIT ${STATS_GROUPS}`,
        args,
      );
      return rows.map((r) => ({ value: r.value ?? 'unknown', count: Number(r.count) }));
    };
    const [registered] = await this.select<{ n: number | string }>('SELECT COUNT(*) AS n FROM update_server_installations', []);
    const [reporting] = await this.select<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM update_server_installations WHERE ${where}`,
      args,
    );
    return {
      registered: Number(registered?.n ?? 0),
      reporting: Number(reporting?.n ?? 0),
      byVersion: await group('current_version'),
      byDbType: await group('db_type'),
      byCountry: await group('country'),
    };
  }

  /** Drops what is no longer needed: old checks, passed rate windows, registrations never used. */
  async prune(now: number): Promise<void> {
    await this.write('DELETE FROM update_server_checks WHERE at < ?', [now - this.options.checksRetentionDays * 86_400_000]);
    await this.write('DELETE FROM update_server_rate WHERE next_allowed_at < ?', [now]);
    await this.write('DELETE FROM update_server_installations WHERE last_seen IS NULL AND secret_rotated_at < ?', [
      now - this.options.unusedRegistrationDays * 86_400_000,
    ]);
  }
}

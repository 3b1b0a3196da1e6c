import { QueryTypes, UniqueConstraintError, literal } from 'sequelize';
import { AccountLockedError } from './errors.js';
import type { User as UserRow } from './models/user.js';

/** The kernel's bound User model (models per kernel). */
type UserModel = typeof UserRow;

/** The spec's rule: 5 consecutive failures lock 15 minutes (for unknown clients, and for each known device on its own). */
export const MAX_FAILED_ATTEMPTS = 5;
/** Kept for the audit trail's wording: unknown clients share the spec's count, so the same number. */
export const ACCOUNT_MAX_FAILED_ATTEMPTS = MAX_FAILED_ATTEMPTS;
export const LOCKOUT_MS = 15 * 60 * 1000;
/** A known device's count with no failure for this long (and no lock running) is forgotten (its row pruned). */
export const CLIENT_FAILURE_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * Every client without a device cookie of the account (lockout.ts): they share one count, the spec's
 * failedAttempts / lockoutUntil of the user row (or, for an email with no account, a row of
 * auth_login_failures keyed by a keyed hash of tenant and email, so a lock answers the same).
 */
export const UNKNOWN_CLIENTS = 'unknown-clients';

/** Which lock: a known device's own (`client`), or the one of all unknown clients (`account`, the spec's). */
export type LockScope = 'client' | 'account';

/**
 * The failure counts of the lockout rule (README "Sign-in"): the account's count of unknown clients on
 * the user row, and each known device's own count in auth_login_failures.
 */

/** Clears the failure counts after a completed sign-in: the account's (the spec's rule) and this device's. */
export async function resetFailures(User: UserModel, userId: string, client: string = UNKNOWN_CLIENTS): Promise<void> {
  await User.update({ failed_attempts: 0, lockout_until: null }, { where: { id: userId } });
  if (client !== UNKNOWN_CLIENTS)
    await db(User).query('DELETE FROM auth_login_failures WHERE user_id = ? AND client_hash = ?', { replacements: [userId, client] });
}

/** Seconds left on the lock that applies to this client (unknown clients': the account's; a device: its own), or 0. */
export async function lockedForSeconds(User: UserModel, userId: string, client: string = UNKNOWN_CLIENTS): Promise<number> {
  const until =
    client === UNKNOWN_CLIENTS
      ? Number((await User.findByPk(userId))?.lockout_until ?? 0)
      : Number((await clientRow(User, userId, client))?.lockout_until ?? 0);
  return until > Date.now() ? Math.ceil((until - Date.now()) / 1000) : 0;
}

/** How many known devices the account is locked for right now. */
export async function clientLockCount(User: UserModel, userId: string): Promise<number> {
  const [row] = await db(User).query<{ n: number | string }>(
    'SELECT COUNT(*) AS n FROM auth_login_failures WHERE user_id = ? AND lockout_until > ?',
    { replacements: [userId, Date.now()], type: QueryTypes.SELECT },
  );
  return Number(row?.n ?? 0);
}

/**
 * Counts a failure for the client (unknown clients: the account's count; a device: its own); resolves
 * the lock this failure set (empty: none). A failure that finds the lock already set (it lost a race)
 * throws AccountLockedError (403).
 */
export async function recordFailure(User: UserModel, userId: string, client: string = UNKNOWN_CLIENTS): Promise<LockScope[]> {
  if (client === UNKNOWN_CLIENTS) return (await recordAccountFailure(User, userId)) ? ['account'] : [];
  return (await recordClientFailure(User, userId, client)) ? ['client'] : [];
}

/**
 * Deletes per-client counts nobody needs any more: no failure for CLIENT_FAILURE_TTL_MS and no lock
 * running. Resolves the number of rows deleted. (Run with the other purges, every 5 minutes.)
 */
export async function purgeClientFailures(User: UserModel, now = Date.now()): Promise<number> {
  const [, meta] = await db(User).query(
    'DELETE FROM auth_login_failures WHERE updated_at < ? AND (lockout_until IS NULL OR lockout_until < ?)',
    { replacements: [now - CLIENT_FAILURE_TTL_MS, now], type: QueryTypes.UPDATE },
  );
  return affectedRows(meta);
}

function db(User: UserModel) {
  return User.sequelize!;
}

export async function clientRow(
  User: UserModel,
  userId: string,
  client: string,
): Promise<{ failures: number; lockout_until: number | string | null } | null> {
  const rows = await db(User).query<{ failures: number; lockout_until: number | string | null }>(
    'SELECT failures, lockout_until FROM auth_login_failures WHERE user_id = ? AND client_hash = ?',
    { replacements: [userId, client], type: QueryTypes.SELECT },
  );
  return rows[0] ?? null;
}

export async function clearExpiredClientLock(User: UserModel, userId: string, client: string, now: number): Promise<boolean> {
  const [, meta] = await db(User).query(
    'UPDATE auth_login_failures SET failures = 0, lockout_until = NULL, updated_at = ? WHERE user_id = ? AND client_hash = ? AND lockout_until <= ?',
    { replacements: [now, userId, client, now], type: QueryTypes.UPDATE },
  );
  return affectedRows(meta) > 0;
}

export async function clearClientFailures(User: UserModel, userId: string): Promise<void> {
  await db(User).query('DELETE FROM auth_login_failures WHERE user_id = ?', { replacements: [userId] });
}

/**
 * The per-client count: one conditional UPDATE of an unlocked row (lockout_until first: MariaDB
 * evaluates SET left to right with updated values), or the row's INSERT for a first failure (a
 * concurrent INSERT that wins makes this one retry the UPDATE; at most 3 rounds). An expired lock is
 * cleared and counted again. Resolves true when this failure locked the account for this client.
 */
export async function recordClientFailure(User: UserModel, userId: string, client: string): Promise<boolean> {
  for (let round = 0; round < 3; round++) {
    const now = Date.now();
    const [, meta] = await db(User).query(
      `UPDATE auth_login_failures SET lockout_until = CASE WHEN failures + 1 >= ${MAX_FAILED_ATTEMPTS} THEN ? ELSE NULL END,
         failures = failures + 1, updated_at = ? WHERE user_id = ? AND client_hash = ? AND lockout_until IS NULL`,
      { replacements: [now + LOCKOUT_MS, now, userId, client], type: QueryTypes.UPDATE },
    );
    if (affectedRows(meta) > 0) return Number((await clientRow(User, userId, client))?.lockout_until ?? 0) > now;
    const row = await clientRow(User, userId, client);
    if (!row) {
      try {
        await db(User).query(
          'INSERT INTO auth_login_failures (user_id, client_hash, failures, lockout_until, updated_at) VALUES (?, ?, ?, ?, ?)',
          { replacements: [userId, client, 1, MAX_FAILED_ATTEMPTS <= 1 ? now + LOCKOUT_MS : null, now], type: QueryTypes.INSERT },
        );
        return MAX_FAILED_ATTEMPTS <= 1;
      } catch (err) {
        if (err instanceof UniqueConstraintError) continue;
        throw err;
      }
    }
    const until = Number(row.lockout_until ?? 0);
    if (until > now) throw Object.assign(new AccountLockedError(Math.ceil((until - now) / 1000)), { scope: 'client' as LockScope });
    await clearExpiredClientLock(User, userId, client, now);
  }
  return false;
}

/**
 * The count of unknown clients (the spec's failedAttempts): one atomic step counts the failure and,
 * at MAX_FAILED_ATTEMPTS, sets the lock. Only an unlocked row is updated, so once locked nothing counts further; a failure
 * that loses that race answers 403. (lockout_until is assigned first: MariaDB evaluates SET left to
 * right with updated values.) Resolves true when this failure locked the account.
 */
export async function recordAccountFailure(User: UserModel, userId: string): Promise<boolean> {
  const now = Date.now();
  const [changed] = await User.update(
    {
      lockout_until: literal(`CASE WHEN failed_attempts + 1 >= ${MAX_FAILED_ATTEMPTS} THEN ${now + LOCKOUT_MS} ELSE NULL END`),
      failed_attempts: literal('failed_attempts + 1'),
    },
    { where: { id: userId, lockout_until: null } },
  );
  if (changed === 0) {
    const locked = await User.findByPk(userId);
    const until = Number(locked?.lockout_until ?? 0);
    if (until > Date.now())
      throw Object.assign(new AccountLockedError(Math.ceil((until - Date.now()) / 1000)), { scope: 'account' as LockScope });
    return false;
  }
  const user = await User.findByPk(userId);
  return Number(user?.lockout_until ?? 0) > Date.now();
}

/** Rows changed by a raw UPDATE or DELETE run as QueryTypes.UPDATE: the second item of the result on both dialects. */
function affectedRows(meta: unknown): number {
  if (typeof meta === 'number') return meta;
  const m = meta as { changes?: number; affectedRows?: number } | null | undefined;
  return Number(m?.changes ?? m?.affectedRows ?? 0);
}

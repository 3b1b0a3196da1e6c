import { randomBytes, randomUUID } from 'node:crypto';
import { Op, UniqueConstraintError, literal } from 'sequelize';
import { InternalError, ValidationError } from '../../kernel/errors.js';
import type { EventBus } from '../../kernel/events.js';
import type { WorkerPool } from '../../kernel/pool.js';
import { AccountBlockedError, AccountLockedError, InvalidCredentialsError, UserExistsError } from './errors.js';
import { Role } from './models/role.js';
import { likeContains } from '../../kernel/text/like-contains.js';
import { User } from './models/user.js';
import { GUEST_GRANTS_CHANGED, USER_EVENTS, type UserEvent } from './public.js';
import { BUILT_IN_ROLES } from './roles.js';

export const MAX_FAILED_ATTEMPTS = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;

export interface PublicUser {
  _id: string;
  email: string;
  username: string;
  role: string;
}

/** What authenticate() found out, for the audit trail (filled as it goes, also when it throws). */
export interface SignInNotes {
  /** The account the email named (null: none in this tenant). */
  user?: User | null;
  /** An expired lock was cleared by this attempt. */
  lockExpired?: boolean;
  /** This failure was the one that locked the account. */
  lockedNow?: boolean;
}

export interface AuthOptions {
  bcryptRounds: number;
}

export const toPublicUser = (u: User): PublicUser => ({ _id: u.id, email: u.email, username: u.username, role: u.role });

/** Password policy: at least 8 characters, at most 72 bytes (what bcrypt uses). */
export function checkPassword(password: string): void {
  if (password.length < 8)
    throw new ValidationError('Password must be at least 8 characters', [{ path: 'body.password', message: 'at least 8 characters' }]);
  if (Buffer.byteLength(password) > 72)
    throw new ValidationError('Password must be at most 72 bytes', [{ path: 'body.password', message: 'at most 72 bytes' }]);
}

/**
 * Users, passwords and the lockout rule. Hashing and verification run in the worker pool. An unknown
 * email costs the same work as a wrong password (a dummy hash is verified), so timing does not tell
 * them apart. Failed attempts are counted with one conditional UPDATE, so concurrent failures lock
 * the account once and never count past five.
 */
export class UsersService {
  private dummyHash: Promise<string> | null = null;

  constructor(
    private readonly pool: WorkerPool,
    private readonly options: AuthOptions,
    /** User-management events (USER_EVENTS in public.ts) go out on the event bus. */
    private readonly events?: Pick<EventBus, 'publish'>,
  ) {}

  private async announce(kind: keyof typeof USER_EVENTS, user: User, extra: { role?: string; blocked?: boolean } = {}): Promise<void> {
    await this.events?.publish<UserEvent>(USER_EVENTS[kind], { tenantId: user.tenant_id, user: toPublicUser(user), ...extra });
  }

  private async hash(password: string): Promise<string> {
    const result = await this.pool.hashPassword(password, this.options.bcryptRounds);
    if (!result.ok) throw new ValidationError(result.issues[0]!.message);
    return result.value;
  }

  private async verify(password: string, hash: string): Promise<boolean> {
    const result = await this.pool.verifyPassword(password, hash);
    if (!result.ok) throw new InternalError(new Error(result.issues[0]!.message));
    return result.value;
  }

  async create(input: { email: string; password: string; role: string; username?: string; tenantId?: string }): Promise<PublicUser> {
    const tenantId = input.tenantId ?? 'default';
    const email = input.email.trim().toLowerCase();
    checkPassword(input.password);
    if (!(await Role.findOne({ where: { tenant_id: tenantId, name: input.role } }))) {
      throw new ValidationError(`Unknown role '${input.role}'`, [{ path: 'body.role', message: 'unknown role' }]);
    }
    try {
      const user = await User.create({
        id: randomUUID(),
        tenant_id: tenantId,
        email,
        username: input.username?.trim() || email.split('@')[0]!,
        password_hash: await this.hash(input.password),
        role: input.role,
        preferences: '{}',
      });
      await this.announce('create', user);
      return toPublicUser(user);
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new UserExistsError();
      throw err;
    }
  }

  /** Confirms the password of a signed-in user (re-authentication); does not touch the lockout count. */
  async confirmPassword(userId: string, password: string): Promise<boolean> {
    const user = await User.findByPk(userId);
    return user !== null && (await this.verify(password.slice(0, 1024), user.password_hash));
  }

  /** Changes the username and merges preferences (e.g. preferences.theme). */
  async updateAttributes(userId: string, input: { username?: string; preferences?: Record<string, unknown> }): Promise<User> {
    const user = await User.findByPk(userId);
    if (!user) throw new ValidationError('Unknown user');
    const preferences = { ...(JSON.parse(user.preferences) as Record<string, unknown>) };
    for (const [key, value] of Object.entries(input.preferences ?? {})) {
      const before = preferences[key];
      preferences[key] =
        value && typeof value === 'object' && !Array.isArray(value) && before && typeof before === 'object'
          ? { ...before, ...value }
          : value;
    }
    await user.update({ ...(input.username ? { username: input.username.trim() } : {}), preferences: JSON.stringify(preferences) });
    await this.announce('update', user);
    return user;
  }

  async list(tenantId: string, query: { page: number; limit: number; search?: string }) {
    const where: Record<string | symbol, unknown> = { tenant_id: tenantId };
    if (query.search) {
      const db = User.sequelize!;
      where[Op.or] = [likeContains(db, 'email', query.search), likeContains(db, 'username', query.search)];
    }
    const { rows, count } = await User.findAndCountAll({
      where,
      order: [['created_at', 'DESC']],
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
    return {
      items: rows.map((u) => ({
        ...toPublicUser(u),
        blocked: Boolean(u.blocked),
        is2FAEnabled: Boolean(u.two_factor_enabled),
        createdAt: new Date(u.created_at).toISOString(),
      })),
      total: count,
      page: query.page,
      limit: query.limit,
    };
  }

  /** The tenant's roles with their permissions (built-in admin, editor, viewer, guest and any added). */
  async roles(tenantId: string): Promise<Array<{ name: string; description: string; permissions: string[] }>> {
    const rows = await Role.findAll({ where: { tenant_id: tenantId }, order: [['name', 'ASC']] });
    return rows.map((r) => ({ name: r.name, description: r.description, permissions: JSON.parse(r.permissions) as string[] }));
  }

  /**
   * Grants or withdraws one permission of the tenant's guest role (public access: `content:read:<collection>`
   * lets callers without a session read that collection's published entries). Read and written in one
   * transaction, so two grants at once both land; every instance re-reads the guest's permissions at once
   * (GUEST_GRANTS_CHANGED). Returns the guest role's permissions.
   */
  async setGuestGrant(tenantId: string, permission: string, granted: boolean): Promise<string[]> {
    const sequelize = Role.sequelize!;
    const permissions = await sequelize.transaction(async (transaction) => {
      const row = await Role.findOne({ where: { tenant_id: tenantId, name: 'guest' }, transaction, lock: transaction.LOCK.UPDATE });
      const current = row ? (JSON.parse(row.permissions) as string[]) : [];
      const next = granted ? [...new Set([...current, permission])] : current.filter((p) => p !== permission);
      if (next.length === current.length && next.every((p, i) => p === current[i])) return current;
      if (row) await Role.update({ permissions: JSON.stringify(next) }, { where: { tenant_id: tenantId, name: 'guest' }, transaction });
      else
        await Role.create(
          { tenant_id: tenantId, name: 'guest', description: BUILT_IN_ROLES.guest!.description, permissions: JSON.stringify(next) },
          { transaction },
        );
      return next;
    });
    await this.events?.publish(GUEST_GRANTS_CHANGED, { tenantId });
    return permissions;
  }

  /** Gives the user another role (the caller checked that it exists and may be granted). */
  async setRole(userId: string, role: string): Promise<void> {
    await User.update({ role }, { where: { id: userId } });
    const user = await User.findByPk(userId);
    if (user) await this.announce('update', user, { role });
  }

  async setBlocked(userId: string, blocked: boolean): Promise<void> {
    await User.update({ blocked }, { where: { id: userId } });
    const user = await User.findByPk(userId);
    if (user) await this.announce('update', user, { blocked });
  }

  /** Figures of the tenant's users for the dashboard (security, provisioning health); no personal data. */
  async summary(tenantId: string) {
    const users = await User.findAll({
      where: { tenant_id: tenantId },
      attributes: ['role', 'blocked', 'lockout_until', 'failed_attempts', 'two_factor_enabled', 'created_at'],
    });
    const now = Date.now();
    const byRole: Record<string, number> = {};
    let blocked = 0,
      locked = 0,
      failedAttempts = 0,
      twoFactor = 0,
      recent = 0;
    for (const u of users) {
      byRole[u.role] = (byRole[u.role] ?? 0) + 1;
      if (u.blocked) blocked++;
      if (u.lockout_until !== null && Number(u.lockout_until) > now) locked++;
      failedAttempts += Number(u.failed_attempts ?? 0);
      if (u.two_factor_enabled) twoFactor++;
      if (now - new Date(u.created_at).getTime() < 30 * 24 * 3600 * 1000) recent++;
    }
    return {
      total: users.length,
      active: users.length - blocked,
      blocked,
      locked,
      failedAttempts,
      twoFactorEnabled: twoFactor,
      createdLast30Days: recent,
      byRole,
    };
  }

  countActiveAdmins(tenantId: string): Promise<number> {
    return User.count({ where: { tenant_id: tenantId, role: 'admin', blocked: false } });
  }

  async delete(userId: string): Promise<void> {
    const user = await User.findByPk(userId);
    if ((await User.destroy({ where: { id: userId } })) && user) await this.announce('delete', user);
  }

  async roleExists(role: string, tenantId: string): Promise<boolean> {
    return (await Role.findOne({ where: { tenant_id: tenantId, name: role } })) !== null;
  }

  findByEmail(email: string, tenantId: string): Promise<User | null> {
    return User.findOne({ where: { tenant_id: tenantId, email: email.trim().toLowerCase() } });
  }

  /** Sets a new password (reset flow) and clears any lockout. */
  async setPassword(userId: string, password: string): Promise<void> {
    checkPassword(password);
    await User.update({ password_hash: await this.hash(password), failed_attempts: 0, lockout_until: null }, { where: { id: userId } });
  }

  findById(id: string): Promise<User | null> {
    return User.findByPk(id);
  }

  async permissionsOf(role: string, tenantId: string): Promise<string[]> {
    const row = await Role.findOne({ where: { tenant_id: tenantId, name: role } });
    return row ? (JSON.parse(row.permissions) as string[]) : [];
  }

  /**
   * Checks email and password under the lockout rule; returns the user or throws the right error.
   * `notes` tells the caller (for the audit trail) which account was tried, whether an expired lock was
   * cleared, and whether this failure locked the account.
   */
  async authenticate(emailInput: string, password: string, tenantId = 'default', notes: SignInNotes = {}): Promise<User> {
    const email = emailInput.trim().toLowerCase();
    const user = await User.findOne({ where: { tenant_id: tenantId, email } });
    notes.user = user;
    if (!user) {
      this.dummyHash ??= this.hash(randomBytes(16).toString('hex'));
      await this.verify(password.slice(0, 72), await this.dummyHash);
      throw new InvalidCredentialsError();
    }
    const now = Date.now();
    if (user.lockout_until !== null && Number(user.lockout_until) > now) {
      throw new AccountLockedError(Math.ceil((Number(user.lockout_until) - now) / 1000));
    }
    if (user.lockout_until !== null) {
      // The lock has expired: its count starts again.
      const [cleared] = await User.update(
        { failed_attempts: 0, lockout_until: null },
        { where: { id: user.id, lockout_until: { [Op.lte]: now } } },
      );
      if (cleared) notes.lockExpired = true;
    }
    if (!(await this.verify(password, user.password_hash))) {
      notes.lockedNow = await this.recordFailure(user.id);
      throw new InvalidCredentialsError();
    }
    if (user.blocked) throw new AccountBlockedError();
    // With 2FA the sign-in is not complete yet: the count resets only after the second step, so
    // signing in again with the password cannot wipe failed codes and allow endless code guessing.
    if (!user.two_factor_enabled) await this.resetFailures(user.id);
    return user;
  }

  /** Clears the failure count after a completed sign-in. */
  async resetFailures(userId: string): Promise<void> {
    await User.update({ failed_attempts: 0, lockout_until: null }, { where: { id: userId } });
  }

  /** Seconds left on a lock, or 0. */
  async lockedForSeconds(userId: string): Promise<number> {
    const user = await User.findByPk(userId);
    const until = Number(user?.lockout_until ?? 0);
    return until > Date.now() ? Math.ceil((until - Date.now()) / 1000) : 0;
  }

  /**
   * One atomic step: count the failure and, on the fifth, set the lock. Only an unlocked row is
   * updated, so once locked nothing counts further; a failure that loses that race answers 403.
   * (lockout_until is assigned first: MariaDB evaluates SET left to right with updated values.)
   * Resolves true when this failure locked the account.
   */
  async recordFailure(userId: string): Promise<boolean> {
    const [changed] = await User.update(
      {
        lockout_until: literal(`CASE WHEN failed_attempts + 1 >= ${MAX_FAILED_ATTEMPTS} THEN ${Date.now() + LOCKOUT_MS} ELSE NULL END`),
        failed_attempts: literal('failed_attempts + 1'),
      },
      { where: { id: userId, lockout_until: null } },
    );
    if (changed === 0) {
      const locked = await User.findByPk(userId);
      const until = Number(locked?.lockout_until ?? 0);
      if (until > Date.now()) throw new AccountLockedError(Math.ceil((until - Date.now()) / 1000));
      return false;
    }
    return (await this.lockedForSeconds(userId)) > 0;
  }
}

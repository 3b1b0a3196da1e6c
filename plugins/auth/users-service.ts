import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Op, UniqueConstraintError } from 'sequelize';
import { InternalError, ValidationError, type EventBus, type WorkerPool, type ModelMap, modelsOf } from '../../kernel/sdk.js';
import { AccountBlockedError, AccountLockedError, InvalidCredentialsError, UserExistsError } from './errors.js';
import { Role } from './models/role.js';
import { User } from './models/user.js';
import { toPublicUser, type PublicUser } from './public-user.js';
import { GUEST_GRANTS_CHANGED, ROLE_RENAMED, USER_EVENTS, type UserEvent } from './public.js';
import {
  insertRole,
  permissionsOf,
  removeRole,
  roleById,
  roleExists,
  rolesOf,
  roleViews,
  type RoleInput,
  type RoleView,
  writeGuestGrant,
  writeRole,
} from './user-roles.js';
import { listUsers } from './users-listing.js';
import { usersSummary } from './users-summary.js';
import {
  clearClientFailures,
  clearExpiredClientLock,
  clientLockCount,
  clientRow,
  lockedForSeconds,
  purgeClientFailures,
  recordClientFailure,
  recordFailure,
  resetFailures,
  UNKNOWN_CLIENTS,
  type LockScope,
} from './login-failures.js';

export {
  ACCOUNT_MAX_FAILED_ATTEMPTS,
  CLIENT_FAILURE_TTL_MS,
  LOCKOUT_MS,
  MAX_FAILED_ATTEMPTS,
  UNKNOWN_CLIENTS,
  type LockScope,
} from './login-failures.js';
/** @deprecated the old name of UNKNOWN_CLIENTS (callers that name no client are unknown clients). */
export const UNIDENTIFIED_CLIENT = UNKNOWN_CLIENTS;

export { toPublicUser, type PublicUser } from './public-user.js';

/** What authenticate() found out, for the audit trail (filled as it goes, also when it throws). */
export interface SignInNotes {
  /** The account the email named (null: none in this tenant). */
  user?: User | null;
  /** An expired lock was cleared by this attempt: which one(s). */
  lockExpired?: LockScope[];
  /** This failure was the one that locked the account: for this client, for everyone, or both. */
  lockedNow?: LockScope[];
  /** The attempt was refused (403) because of this lock. */
  lockedScope?: LockScope;
}

/**
 * Told (and awaited) when what a user may do changes: role, block, deletion (`userChanged`), or a role's
 * permissions (`roleChanged`, the guest grants). The auth plugin registers its cache of API keys and
 * website tokens (TokensService), so the change applies to them on every instance before the call returns.
 */
export interface IdentityChangeListener {
  userChanged(userId: string): Promise<void>;
  roleChanged(tenantId: string, role: string): Promise<void>;
}

export interface AuthOptions {
  bcryptRounds: number;
}

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
 * them apart.
 *
 * Lockout (README "Sign-in"), the spec's rule kept for unknown clients and a device cookie (OWASP) for
 * known ones: a client that signed in to the account before holds a signed device cookie bound to the
 * account (lockout.ts) and has its own count in auth_login_failures (MAX_FAILED_ATTEMPTS lock that
 * device only); every other client shares the account's count (auth_users.failed_attempts /
 * lockout_until): MAX_FAILED_ATTEMPTS from any mix of them lock the account for unknown clients, never
 * for the owner's devices. An email with no account keeps the same count (a pseudo account id in
 * auth_login_failures), so its lock answers exactly as a real one. Each count is one conditional UPDATE
 * of an unlocked row, so concurrent failures lock once and never count past the threshold.
 */
export class UsersService {
  private dummyHash: Promise<string> | null = null;
  private readonly listeners: IdentityChangeListener[] = [];
  private readonly models: { Role: typeof Role; User: typeof User };

  constructor(
    models: ModelMap,
    private readonly pool: WorkerPool,
    private readonly options: AuthOptions,
    /** User-management events (USER_EVENTS in public.ts) go out on the event bus. */
    private readonly events?: Pick<EventBus, 'publish'>,
    /** A keyed hash (HMAC under the installation's key) for the counts of emails with no account. */
    private readonly keyed: (text: string) => Promise<string> = async (text) =>
      createHash('sha256').update(`unknown-email.${text}`).digest('base64url'),
  ) {
    this.models = modelsOf(models, { Role, User });
  }

  /** Registers a listener of identity changes (see IdentityChangeListener). */
  onIdentityChange(listener: IdentityChangeListener): void {
    this.listeners.push(listener);
  }

  private async userChanged(userId: string): Promise<void> {
    for (const l of this.listeners) await l.userChanged(userId);
  }

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
    if (!(await this.models.Role.findOne({ where: { tenant_id: tenantId, name: input.role } }))) {
      throw new ValidationError(`Unknown role '${input.role}'`, [{ path: 'body.role', message: 'unknown role' }]);
    }
    try {
      const user = await this.models.User.create({
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
    const user = await this.models.User.findByPk(userId);
    return user !== null && (await this.verify(password.slice(0, 1024), user.password_hash));
  }

  /** Changes the username and merges preferences (e.g. preferences.theme). */
  async updateAttributes(userId: string, input: { username?: string; preferences?: Record<string, unknown> }): Promise<User> {
    const user = await this.models.User.findByPk(userId);
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

  /** One page of the tenant's users (newest first; `search` matches email or username). */
  list(tenantId: string, query: { page: number; limit: number; search?: string }) {
    return listUsers(this.models.User, tenantId, query);
  }

  /** The tenant's roles with their permissions (built-in admin, editor, viewer, guest and any added). */
  roles(tenantId: string): Promise<Array<{ name: string; description: string; permissions: string[] }>> {
    return rolesOf(this.models.Role, tenantId);
  }

  /**
   * Grants or withdraws one permission of the tenant's guest role (public access: `content:read:<collection>`
   * lets callers without a session read that collection's published entries). Read and written in one
   * transaction, so two grants at once both land; every instance re-reads the guest's permissions at once
   * (GUEST_GRANTS_CHANGED). Returns the guest role's permissions.
   */
  async setGuestGrant(tenantId: string, permission: string, granted: boolean): Promise<string[]> {
    const permissions = await writeGuestGrant(this.models.Role, tenantId, permission, granted);
    for (const l of this.listeners) await l.roleChanged(tenantId, 'guest');
    await this.events?.publish(GUEST_GRANTS_CHANGED, { tenantId });
    return permissions;
  }

  /** The tenant's roles with ids, as /api/roles answers them (built-in first); one by id (null: none of this tenant's). */
  roleViews = (tenantId: string): Promise<RoleView[]> => roleViews(this.models.Role, tenantId);
  roleById = (tenantId: string, id: string): Promise<RoleView | null> => roleById(this.models.Role, tenantId, id);
  /** Adds a custom role (the caller checked name, permissions and that it may grant them). */
  createRole = (tenantId: string, input: RoleInput): Promise<RoleView> => insertRole(this.models.Role, tenantId, input);

  /** Changes a role; whatever acts with it (old and new name) is read again on every instance before this resolves. */
  async updateRole(tenantId: string, current: RoleView, next: RoleInput): Promise<RoleView> {
    const updated = await writeRole(this.models.Role, this.models.User, tenantId, current, next);
    if (next.name !== current.name) await this.events?.publish(ROLE_RENAMED, { tenantId, from: current.name, to: next.name });
    await this.roleChanged(tenantId, current.name);
    if (next.name !== current.name) await this.roleChanged(tenantId, next.name);
    return updated;
  }
  /** Deletes a custom role nobody holds (409 CONFLICT for a built-in role or one still held). */
  async deleteRole(tenantId: string, role: RoleView): Promise<void> {
    await removeRole(this.models.Role, this.models.User, tenantId, role);
    await this.roleChanged(tenantId, role.name);
  }
  private async roleChanged(tenantId: string, role: string): Promise<void> {
    for (const l of this.listeners) await l.roleChanged(tenantId, role);
    if (role === 'guest') await this.events?.publish(GUEST_GRANTS_CHANGED, { tenantId });
  }

  /** Gives the user another role (the caller checked that it exists and may be granted). */
  async setRole(userId: string, role: string): Promise<void> {
    await this.models.User.update({ role }, { where: { id: userId } });
    await this.userChanged(userId);
    const user = await this.models.User.findByPk(userId);
    if (user) await this.announce('update', user, { role });
  }

  async setBlocked(userId: string, blocked: boolean): Promise<void> {
    await this.models.User.update({ blocked }, { where: { id: userId } });
    await this.userChanged(userId);
    const user = await this.models.User.findByPk(userId);
    if (user) await this.announce('update', user, { blocked });
  }

  /** Figures of the tenant's users for the dashboard (security, provisioning health); no personal data. */
  summary(tenantId: string) {
    return usersSummary(this.models.User, tenantId);
  }

  countActiveAdmins(tenantId: string): Promise<number> {
    return this.models.User.count({ where: { tenant_id: tenantId, role: 'admin', blocked: false } });
  }

  async delete(userId: string): Promise<void> {
    const user = await this.models.User.findByPk(userId);
    if ((await this.models.User.destroy({ where: { id: userId } })) && user) await this.announce('delete', user);
    await this.userChanged(userId);
    await clearClientFailures(this.models.User, userId);
  }

  roleExists(role: string, tenantId: string): Promise<boolean> {
    return roleExists(this.models.Role, role, tenantId);
  }

  findByEmail(email: string, tenantId: string): Promise<User | null> {
    return this.models.User.findOne({ where: { tenant_id: tenantId, email: email.trim().toLowerCase() } });
  }

  /** Sets a new password (reset flow) and clears any lockout. */
  async setPassword(userId: string, password: string): Promise<void> {
    checkPassword(password);
    await this.models.User.update(
      { password_hash: await this.hash(password), failed_attempts: 0, lockout_until: null },
      { where: { id: userId } },
    );
    await clearClientFailures(this.models.User, userId);
  }

  findById(id: string): Promise<User | null> {
    return this.models.User.findByPk(id);
  }

  permissionsOf(role: string, tenantId: string): Promise<string[]> {
    return permissionsOf(this.models.Role, role, tenantId);
  }

  /**
   * Checks email and password under the lockout rule; returns the user or throws the right error.
   * `client` is UNKNOWN_CLIENTS or the keyed hash of a known device of this account (lockout.ts). The
   * lock that applies to the client is checked before the password. `notes` tells the caller (for the
   * audit trail) which account was tried, which expired locks were cleared, which lock refused it, and
   * which lock this failure set.
   */
  async authenticate(
    emailInput: string,
    password: string,
    tenantId = 'default',
    notes: SignInNotes = {},
    client: string = UNKNOWN_CLIENTS,
  ): Promise<User> {
    const email = emailInput.trim().toLowerCase();
    const user = await this.models.User.findOne({ where: { tenant_id: tenantId, email } });
    notes.user = user;
    const now = Date.now();
    if (!user) {
      // No such account: the same count, lock and answers as an account's, for every client.
      const pseudo = await this.unknownEmailId(tenantId, email);
      const until = Number((await clientRow(this.models.User, pseudo, UNKNOWN_CLIENTS))?.lockout_until ?? 0);
      if (until > now) {
        notes.lockedScope = 'account';
        throw new AccountLockedError(Math.ceil((until - now) / 1000));
      }
      if (until) await clearExpiredClientLock(this.models.User, pseudo, UNKNOWN_CLIENTS, now);
      this.dummyHash ??= this.hash(randomBytes(16).toString('hex'));
      await this.verify(password.slice(0, 72), await this.dummyHash);
      try {
        await recordClientFailure(this.models.User, pseudo, UNKNOWN_CLIENTS);
      } catch (err) {
        if (err instanceof AccountLockedError) notes.lockedScope = 'account';
        throw err;
      }
      throw new InvalidCredentialsError();
    }
    if (client === UNKNOWN_CLIENTS) {
      if (user.lockout_until !== null && Number(user.lockout_until) > now) {
        notes.lockedScope = 'account';
        throw new AccountLockedError(Math.ceil((Number(user.lockout_until) - now) / 1000));
      }
      if (user.lockout_until !== null) {
        // The lock has expired: its count starts again.
        const [cleared] = await this.models.User.update(
          { failed_attempts: 0, lockout_until: null },
          { where: { id: user.id, lockout_until: { [Op.lte]: now } } },
        );
        if (cleared) (notes.lockExpired ??= []).push('account');
      }
    } else {
      // A known device: only its own lock applies (unknown clients cannot lock the owner out of it).
      const clientUntil = (await clientRow(this.models.User, user.id, client))?.lockout_until ?? null;
      if (clientUntil !== null) {
        if (Number(clientUntil) > now) {
          notes.lockedScope = 'client';
          throw new AccountLockedError(Math.ceil((Number(clientUntil) - now) / 1000));
        }
        if (await clearExpiredClientLock(this.models.User, user.id, client, now)) (notes.lockExpired ??= []).push('client');
      }
    }
    if (!(await this.verify(password, user.password_hash))) {
      try {
        notes.lockedNow = await this.recordFailure(user.id, client);
      } catch (err) {
        if (err instanceof AccountLockedError) notes.lockedScope = (err as AccountLockedError & { scope?: LockScope }).scope ?? 'account';
        throw err;
      }
      throw new InvalidCredentialsError();
    }
    if (user.blocked) throw new AccountBlockedError();
    // With 2FA the sign-in is not complete yet: the count resets only after the second step, so
    // signing in again with the password cannot wipe failed codes and allow endless code guessing.
    if (!user.two_factor_enabled) await this.resetFailures(user.id, client);
    return user;
  }

  /** The pseudo account id under which an email with no account is counted (never a UUID: it starts with `~`). */
  private async unknownEmailId(tenantId: string, email: string): Promise<string> {
    return `~${(await this.keyed(`unknown-email.${tenantId}.${email}`)).slice(0, 35)}`;
  }

  /** Clears the failure counts after a completed sign-in: the account's (the spec's rule) and this device's. */
  resetFailures(userId: string, client: string = UNKNOWN_CLIENTS): Promise<void> {
    return resetFailures(this.models.User, userId, client);
  }

  /** Seconds left on the lock that applies to this client (unknown clients': the account's; a device: its own), or 0. */
  lockedForSeconds(userId: string, client: string = UNKNOWN_CLIENTS): Promise<number> {
    return lockedForSeconds(this.models.User, userId, client);
  }

  /** How many known devices the account is locked for right now. */
  clientLockCount(userId: string): Promise<number> {
    return clientLockCount(this.models.User, userId);
  }

  /** Counts a failure for the client; resolves the lock this failure set (see login-failures.ts). */
  recordFailure(userId: string, client: string = UNKNOWN_CLIENTS): Promise<LockScope[]> {
    return recordFailure(this.models.User, userId, client);
  }

  /** Deletes per-client counts nobody needs any more (run with the other purges, every 5 minutes). */
  purgeClientFailures(now = Date.now()): Promise<number> {
    return purgeClientFailures(this.models.User, now);
  }
}

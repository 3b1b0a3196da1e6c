import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Op } from 'sequelize';
import {
  type CacheService,
  type BusEvent,
  type EventBus,
  type Followed,
  type PluginBootContext,
  ForbiddenError,
  type Identity,
  type Logger,
  type ModelMap,
  modelsOf,
  SETTING_CHANGED,
  type SettingChangedEvent,
} from '../../kernel/sdk.js';
import { ReauthRequiredError } from './errors.js';
import { Session } from './models/session.js';
import { SessionMemory } from './session-memory.js';
import { onlineUsers, sessionHashesOfRole, sessionView, type OnlineUser, type SessionView } from './session-views.js';
import type { User } from './models/user.js';
import type { AuthSecrets } from './secrets.js';
import type { UsersService } from './users-service.js';

export type { SessionView } from './session-views.js';

export type DevicePolicy = 'single-per-device' | 'single-per-user' | 'allow-multiple';

export interface SessionOptions {
  ttlHours: number;
  idleHours: number;
  maxPerUser: number;
  devicePolicy: DevicePolicy;
}

/** What a cache holds for a session: identity, role and permissions; never credential material. */
export interface SessionSnapshot {
  sessionId: string;
  idHash: string;
  userId: string;
  tenantId: string;
  role: string;
  permissions: string[];
  expiresAt: number;
}

const CACHE = 'sessions';
/**
 * The spec's in-process layers (Authentication rule 7), both kept in one bounded map per instance:
 * - the auth context: a snapshot verified less than 60 s ago answers read-only requests (GET, HEAD,
 *   OPTIONS) with no further check;
 * - the session cache: at most 10,000 snapshots, each trusted 24 hours after it was verified, for every
 *   method; expiry and SESSION_IDLE_HOURS are still checked and the last activity is recorded.
 * Trusting a snapshot that long is safe because everything that can make one wrong (sign-out,
 * revocation, expiry purge, block, delete, role or permission change, rotation) deletes it on every
 * instance through the event bus (SESSION_REVOKED). Several instances therefore need the Redis event
 * bus, as for every other cache (README, "Deployment").
 */
export const CONTEXT_TRUST_MS = 60_000;
export const LOCAL_MAX = 10_000;
export const LOCAL_TRUST_MS = 24 * 3600 * 1000;
/** Last activity is written to the database at most this often per session. */
const ACTIVITY_WRITE_MS = 60_000;
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Sessions: a random cookie value whose SHA-256 is the database key. Resolution reads the shared cache
 * (memory, or Redis across instances) and falls back to the database; revocation deletes both, so it
 * is effective at once on every instance sharing Redis.
 */
export class SessionsService {
  /** The session settings in force, followed across instances once boot connected them (`follow`). */
  private settings: Followed<SessionOptions> | null = null;
  /** The in-process layers (see SessionMemory). */
  private readonly memory: SessionMemory;
  /** The sudo-mode window (CMS_REAUTH_WINDOW_SECONDS, default 900; 0: a proof every time), see requireRecentPassword. */
  reauthWindowSeconds = 900;

  /**
   * Wires revocations to the event bus (published on revoke, applied when any instance publishes one),
   * and follows the session settings: a SESSION_* System Setting changed on any instance counts from the
   * next sign-in, not after the 30 s re-read.
   */
  connectEvents(
    events: Pick<EventBus, 'publish' | 'subscribe'> & { readonly connected?: boolean },
    follow: PluginBootContext['follow'],
  ): () => void {
    this.settings = follow({
      name: 'session settings',
      load: () => this.readOptions(),
      on: [SETTING_CHANGED],
      apply: (copy, event: BusEvent<SettingChangedEvent>) => (String(event.payload?.key).startsWith('SESSION_') ? undefined : copy),
      maxAgeMs: 30000,
      initial: this.defaults,
    });
    return this.memory.connect(events);
  }

  /** How many snapshots this instance holds in memory (bounded by LOCAL_MAX). */
  get localSize(): number {
    return this.memory.size;
  }

  /** Records the session's last activity (throttled; never blocks the request). */
  private touch(idHash: string, entry: { lastActiveAt: number } | null, now: number): void {
    if (entry) entry.lastActiveAt = now;
    this.models.Session.update({ last_active_at: now }, { where: { id_hash: idHash } }).catch((err) =>
      this.logger.warn({ err }, 'last activity update failed'),
    );
  }

  private readonly models: { Session: typeof Session };

  constructor(
    models: ModelMap,
    private readonly users: UsersService,
    private readonly secrets: AuthSecrets,
    private readonly cache: CacheService,
    private readonly logger: Logger,
    private readonly defaults: SessionOptions,
    /** System Settings (SESSION_*) when the settings store exists; read at most every 30 s. */
    private readonly fromSettings: () => Promise<Partial<SessionOptions>> = async () => ({}),
    /** The bound of the in-memory layers (the spec's 10,000; tests pass a small one). */
    localMax = LOCAL_MAX,
  ) {
    this.models = modelsOf(models, { Session });
    this.memory = new SessionMemory(localMax);
  }

  /**
   * The session settings in force: System Settings over the plugin options, re-read after 30 s or at
   * once when a SESSION_* setting changes. create() applies them, so SESSION_TTL_HOURS sets the expiry
   * of every new session: sign-in, the 2FA step, sign-up, and a new session after re-authentication.
   */
  async options(): Promise<SessionOptions> {
    return this.settings ? this.settings.get() : this.readOptions();
  }

  private async readOptions(): Promise<SessionOptions> {
    const overrides = await this.fromSettings().catch((err) => {
      this.logger.warn({ err }, 'session settings unreadable; using defaults');
      return {};
    });
    return { ...this.defaults, ...overrides };
  }

  /**
   * `passwordProven`: the sign-in proved the password (with the second factor when the user has it on),
   * which opens the sudo-mode window (requireRecentPassword); magic links, passkeys and identity
   * providers do not.
   */
  async create(
    user: User,
    client: { userAgent: string; ip: string },
    proof: { passwordProven?: boolean } = {},
  ): Promise<{ token: string; session: Session }> {
    const options = await this.options();
    await this.evictForPolicy(options.devicePolicy, user.id, client.userAgent).catch((err) =>
      this.logger.warn({ err }, 'session eviction failed'),
    );
    const { token, session } = await this.insert(
      user.id,
      user.tenant_id,
      client,
      options.ttlHours,
      proof.passwordProven ? Date.now() : null,
    );
    if (options.maxPerUser > 0)
      await this.enforceMax(user.id, options.maxPerUser).catch((err) => this.logger.warn({ err }, 'session cap failed'));
    return { token, session };
  }

  /**
   * Session rotation: the session behind `idHash` is replaced by a new one for the same user and
   * client (a new cookie value; the old one stops working on every instance at once). The new session's
   * absolute lifetime starts now from SESSION_TTL_HOURS, as at sign-in. Used after a password change,
   * so a cookie copied before the change is worth nothing after it. Null when the session is gone.
   */
  async rotate(idHash: string, proof: { passwordProven?: boolean } = {}): Promise<{ token: string; session: Session } | null> {
    const old = await this.models.Session.findByPk(idHash);
    if (!old || Number(old.expires_at) <= Date.now()) return null;
    const { ttlHours } = await this.options();
    const passwordAt = proof.passwordProven ? Date.now() : old.password_at === null ? null : Number(old.password_at);
    const fresh = await this.insert(old.user_id, old.tenant_id, { userAgent: old.user_agent, ip: old.ip }, ttlHours, passwordAt);
    await this.revokeByHash(idHash);
    return fresh;
  }

  /** A new session row (its lifetime `ttlHours` from now) and the cookie value whose SHA-256 keys it. */
  private async insert(
    userId: string,
    tenantId: string,
    client: { userAgent: string; ip: string },
    ttlHours: number,
    passwordAt: number | null = null,
  ): Promise<{ token: string; session: Session }> {
    const now = Date.now();
    const token = randomBytes(32).toString('base64url');
    const session = await this.models.Session.create({
      id_hash: hashOf(token),
      public_id: randomUUID(),
      user_id: userId,
      tenant_id: tenantId,
      user_agent: client.userAgent.slice(0, 512),
      ip: client.ip.slice(0, 64),
      created_at: now,
      last_active_at: now,
      expires_at: now + ttlHours * 3600 * 1000,
      password_at: passwordAt,
    });
    return { token, session };
  }

  /** Best effort, never blocks a login: the device policy's evictions. */
  private async evictForPolicy(policy: DevicePolicy, userId: string, userAgent: string): Promise<void> {
    if (policy === 'allow-multiple') return;
    if (policy === 'single-per-device' && !userAgent) return;
    const where = policy === 'single-per-user' ? { user_id: userId } : { user_id: userId, user_agent: userAgent.slice(0, 512) };
    for (const s of await this.models.Session.findAll({ where })) await this.revokeRow(s);
  }

  private async enforceMax(userId: string, max: number): Promise<void> {
    const rows = await this.models.Session.findAll({ where: { user_id: userId }, order: [['last_active_at', 'DESC']] });
    for (const s of rows.slice(max)) await this.revokeRow(s);
  }

  /** The session behind a cookie value, or null when it is unknown, expired, idle too long or its user is gone or blocked. */
  async resolve(token: string, client?: { ip: string; userAgent: string; method?: string }): Promise<SessionSnapshot | null> {
    const idHash = hashOf(token);
    const now = Date.now();
    const local = this.memory.get(idHash);
    const readOnly = !client?.method || ['GET', 'HEAD', 'OPTIONS'].includes(client.method);
    const { idleHours } = await this.options();
    const idleMs = idleHours > 0 ? idleHours * 3600 * 1000 : Infinity;
    if (local && local.snapshot.expiresAt > now) {
      const age = now - local.verifiedAt;
      // Layer 1, the auth context: read-only requests within 60 s of the last verification.
      if (readOnly && age < CONTEXT_TRUST_MS) return local.snapshot;
      // Layer 2, the session cache (24 hours). Looking idle here only sends the lookup on to the
      // database, which knows activity on other instances and decides.
      if (age < LOCAL_TRUST_MS && local.lastActiveAt + idleMs > now) {
        if (now - local.lastActiveAt > ACTIVITY_WRITE_MS) this.touch(idHash, local, now);
        return local.snapshot;
      }
    }
    const cached = await this.cache.get<SessionSnapshot>(CACHE, idHash);
    if (cached && cached.expiresAt > now && (!local || local.lastActiveAt + idleMs > now)) {
      this.memory.remember(cached, local?.lastActiveAt ?? now);
      return cached;
    }
    const row = await this.models.Session.findByPk(idHash);
    if (!row) return null;
    const idleLimit = Number(row.last_active_at) + idleMs;
    if (Number(row.expires_at) <= now || idleLimit <= now) {
      await this.revokeRow(row);
      return null;
    }
    const user = await this.users.findById(row.user_id);
    if (!user || user.blocked) {
      await this.revokeRow(row);
      return null;
    }
    if (client && (client.ip !== row.ip || client.userAgent.slice(0, 512) !== row.user_agent)) {
      // The spec: a changed IP or user agent is only logged, never acted on.
      this.logger.info(
        {
          sessionId: row.public_id,
          userId: row.user_id,
          ipChanged: client.ip !== row.ip,
          userAgentChanged: client.userAgent.slice(0, 512) !== row.user_agent,
        },
        'session used from a different client',
      );
    }
    const snapshot: SessionSnapshot = {
      sessionId: row.public_id,
      idHash,
      userId: user.id,
      tenantId: user.tenant_id,
      role: user.role,
      permissions: await this.users.permissionsOf(user.role, user.tenant_id),
      expiresAt: Number(row.expires_at),
    };
    const ttlSeconds = Math.max(1, Math.min(300, Math.floor((snapshot.expiresAt - now) / 1000)));
    await this.cache.set(CACHE, idHash, snapshot, { ttlSeconds });
    // A revocation that ran while this lookup read the database must not be undone by the cache write above.
    if (!(await this.models.Session.findByPk(idHash, { attributes: ['id_hash'] }))) {
      await this.cache.delete(CACHE, idHash);
      return null;
    }
    const recent = now - Number(row.last_active_at) <= ACTIVITY_WRITE_MS;
    this.memory.remember(snapshot, recent ? Number(row.last_active_at) : now);
    if (!recent) this.touch(idHash, null, now);
    return snapshot;
  }

  private revokeRow(row: Session): Promise<void> {
    return this.revokeByHash(row.id_hash);
  }

  /** Ends a session in every layer: database, shared cache, this instance's memory and (by event) every other's. */
  async revokeByHash(idHash: string): Promise<void> {
    await this.models.Session.destroy({ where: { id_hash: idHash } });
    this.memory.forgetHere(idHash);
    await this.cache.delete(CACHE, idHash);
    await this.memory.drop(idHash, (err) => this.logger.warn({ err }, 'session revocation broadcast failed'));
  }

  /**
   * Drops the cached snapshots of the user's sessions in every layer (shared cache, this instance's memory
   * and, by event, every other's) without ending them: the next request reads the user again (a new role).
   */
  async forgetUser(userId: string): Promise<void> {
    const rows = await this.models.Session.findAll({ where: { user_id: userId }, attributes: ['id_hash'] });
    for (const row of rows) {
      this.memory.forgetHere(row.id_hash);
      await this.cache.delete(CACHE, row.id_hash);
      await this.memory.drop(row.id_hash, (err) => this.logger.warn({ err }, 'session refresh broadcast failed'));
    }
  }
  /** A role changed: its holders' cached sessions go from every layer and instance (ROLE_CHANGED); they stay signed in. */
  async forgetRole(tenantId: string, role: string): Promise<void> {
    for (const h of await sessionHashesOfRole(this.models.Session, tenantId, role)) await this.cache.delete(CACHE, h);
    await this.memory.dropRole(tenantId, role, (err) => this.logger.warn({ err }, 'role change broadcast failed'));
  }
  /** Blocking or deleting a user ends every one of its sessions, everywhere (all but `keepHash`, when given). */
  async revokeAllForUser(userId: string, keepHash?: string): Promise<number> {
    const rows = (await this.models.Session.findAll({ where: { user_id: userId } })).filter((row) => row.id_hash !== keepHash);
    for (const row of rows) await this.revokeRow(row);
    return rows.length;
  }

  async list(userId: string, currentHash: string | null): Promise<SessionView[]> {
    const rows = await this.models.Session.findAll({
      where: { user_id: userId, expires_at: { [Op.gt]: Date.now() } },
      order: [['last_active_at', 'DESC']],
    });
    return rows.map((s) => sessionView(s, currentHash));
  }

  /** A stateless proof (HMAC-SHA256) that the password was just confirmed, bound to one session, valid 5 minutes. */
  async reauthProof(idHash: string): Promise<{ proof: string; expiresAt: string }> {
    const expires = Date.now() + 5 * 60 * 1000;
    return { proof: `${expires}.${await this.secrets.sign(`reauth.${idHash}.${expires}`)}`, expiresAt: new Date(expires).toISOString() };
  }

  async verifyReauthProof(idHash: string, proof: string | undefined): Promise<boolean> {
    const [expiresText, signature] = (proof ?? '').split('.');
    const expires = Number(expiresText);
    if (!signature || !Number.isFinite(expires) || expires <= Date.now()) return false;
    return this.secrets.verifySignature(`reauth.${idHash}.${expires}`, signature);
  }

  /**
   * The sudo-mode guard (README "Re-authentication"), the one check every credential-minting route
   * runs: creating API keys, website tokens and invitation tokens, registering a passkey, disabling 2FA,
   * regenerating backup codes. Passes for a session that proved its password (sign-in with it, plus the
   * second factor when on) less than `reauthWindowSeconds` ago, or that sends a valid X-Reauth-Proof
   * (`proof`); otherwise 403 REAUTH_REQUIRED. Callers without a session (API keys, website tokens) get
   * 403 FORBIDDEN: a bearer is no proof of the password, so it never mints credentials.
   */
  async requireRecentPassword(identity: Identity, proof: string | undefined): Promise<void> {
    const idHash = identity.meta?.sessionHash;
    if (typeof idHash !== 'string')
      throw new ForbiddenError('This needs a signed-in session; API keys and website tokens cannot manage accounts or credentials');
    if (proof && (await this.verifyReauthProof(idHash, proof))) return;
    if (this.reauthWindowSeconds > 0) {
      const row = await this.models.Session.findByPk(idHash, { attributes: ['password_at'] });
      const at = row?.password_at == null ? null : Number(row.password_at);
      if (at !== null && Date.now() - at < this.reauthWindowSeconds * 1000) return;
    }
    throw new ReauthRequiredError();
  }

  /** One session by its public id, if it belongs to the tenant. */
  findByPublicId(publicId: string, tenantId: string): Promise<Session | null> {
    return this.models.Session.findOne({ where: { public_id: publicId, tenant_id: tenantId } });
  }

  /**
   * Users of the tenant with an unexpired session (the dashboard's online users): per user the session
   * count, the last activity, and since when, estimated per the spec as expiry minus the session TTL.
   */
  async online(tenantId: string): Promise<OnlineUser[]> {
    const ttlMs = (await this.options()).ttlHours * 3600 * 1000;
    const rows = await this.models.Session.findAll({
      where: { tenant_id: tenantId, expires_at: { [Op.gt]: Date.now() } },
      order: [['last_active_at', 'DESC']],
      limit: 5000,
    });
    return onlineUsers(rows, ttlMs);
  }

  /** Deletes expired sessions (the spec's cleanup task, every 5 minutes). */
  async purgeExpired(): Promise<number> {
    const expired = await this.models.Session.findAll({ where: { expires_at: { [Op.lte]: Date.now() } }, attributes: ['id_hash'] });
    for (const row of expired) await this.revokeByHash(row.id_hash);
    return expired.length;
  }
}

import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Op, QueryTypes } from 'sequelize';
import {
  ForbiddenError,
  NotFoundError,
  ValidationError,
  type CacheService,
  hasPermission,
  isAdmin,
  type Identity,
  type KeyScope,
  type Logger,
  modelsOf,
  type ModelMap,
} from '../../kernel/sdk.js';
import { BearerCache, type BearerKind, type BearerSnapshot } from './bearer-cache.js';
import { ApiKey } from './models/api-key.js';
import { WebsiteToken } from './models/website-token.js';
import { checkKeyScope } from './key-scope.js';
import type { IdentityChangeListener } from './users-service.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const iso = (ms: number | null) => (ms == null ? null : new Date(Number(ms)).toISOString());

function expiryOf(expiresAt: string | undefined): number | null {
  if (expiresAt === undefined) return null;
  const ms = Date.parse(expiresAt);
  if (!Number.isFinite(ms) || ms <= Date.now())
    throw new ValidationError('expiresAt must be a date in the future', [{ path: 'body.expiresAt', message: 'a future ISO date' }]);
  return ms;
}

/**
 * API keys (`sck_…`) and website tokens: random values returned once, stored as SHA-256. A key acts
 * with its own permissions, never more than its creator has now; a website token acts as its creator
 * (tenant, role and current permissions). Both stop working when revoked, expired, or their creator is
 * blocked or deleted. Resolution goes through a layered cache (bearer-cache.ts); everything here that changes
 * what a key or token may do, and the user and role changes UsersService reports (IdentityChangeListener),
 * drops the cached copies on every instance.
 */
/** How long the hash of a revoked key or token is kept to recognise its use. */
export const TOMBSTONE_DAYS = 90;

export interface RevokedBearer {
  kind: 'api-key' | 'website-token';
  id: string;
  tenantId: string;
  userId: string;
  name: string;
  reason: 'revoked' | 'user-deleted' | 'password-changed';
}

interface BearerRow {
  id: string;
  user_id: string;
  tenant_id: string;
  expires_at: number | string | null;
  last_used_at: number | string | null;
  permissions: string | null;
  role: string | null;
  blocked: boolean | number;
  role_permissions: string | null;
  scope: string | null;
}

/** A key or token as its owner's list shows it (never the value or its hash). */
function bearerListing<P>(
  r: { id: string; name: string; expires_at: number | null; last_used_at: number | null; created_at: number },
  permissions: P,
) {
  return {
    _id: r.id,
    name: r.name,
    permissions,
    expiresAt: iso(r.expires_at),
    lastUsedAt: iso(r.last_used_at),
    createdAt: iso(r.created_at)!,
  };
}

export class TokensService implements IdentityChangeListener {
  private readonly bearers: BearerCache;

  private readonly models: { ApiKey: typeof ApiKey; WebsiteToken: typeof WebsiteToken };

  constructor(models: ModelMap, deps: { cache?: CacheService | null; logger?: Pick<Logger, 'warn'>; localMax?: number } = {}) {
    this.models = modelsOf(models, { ApiKey, WebsiteToken });
    this.bearers = new BearerCache({
      ...deps,
      load: (hash, kind) => this.lookup(hash, kind),
      touch: (kind, id, now) => this.touch(kind, id, now),
    });
  }

  /** Invalidations from and to the other instances (the event bus); returns the unsubscribe function. */
  connectEvents(events: Parameters<BearerCache['connectEvents']>[0]): () => void {
    return this.bearers.connectEvents(events);
  }

  /** How many keys and tokens this instance holds in memory (bounded). */
  get localSize(): number {
    return this.bearers.localSize;
  }

  async createApiKey(
    owner: Identity,
    input: { name: string; permissions: string[]; expiresAt?: string; scope?: KeyScope[] },
    known: (p: string) => boolean,
  ) {
    const permissions = [...new Set(input.permissions)];
    for (const p of permissions) {
      if (!known(p))
        throw new ValidationError(`Unknown permission '${p}'`, [{ path: 'body.permissions', message: `unknown permission ${p}` }]);
      if (!hasPermission(owner, p)) throw new ForbiddenError(`You cannot give a key the permission '${p}', which you do not have`);
    }
    checkKeyScope(input.scope, permissions);
    const key = `sck_${randomBytes(32).toString('base64url')}`;
    const row = await this.models.ApiKey.create({
      id: randomUUID(),
      tenant_id: owner.tenantId,
      user_id: owner.userId,
      name: input.name,
      key_hash: sha256(key),
      permissions: JSON.stringify(permissions),
      scope: input.scope ? JSON.stringify(input.scope) : null,
      expires_at: expiryOf(input.expiresAt),
      created_at: Date.now(),
    });
    return { _id: row.id, name: row.name, key, permissions, scope: input.scope ?? null, expiresAt: iso(row.expires_at) };
  }

  async listApiKeys(owner: Identity) {
    const rows = await this.models.ApiKey.findAll({ where: this.ownedBy(owner), order: [['created_at', 'DESC']] });
    return rows.map((r) => ({
      ...bearerListing(r, JSON.parse(r.permissions) as string[]),
      scope: r.scope ? (JSON.parse(r.scope) as KeyScope[]) : null,
    }));
  }

  /** Revokes at once; what is left is a tombstone of its hash (see revokedBearer). Resolves the key's name and owner. */
  async revokeApiKey(owner: Identity, id: string): Promise<RevokedBearer> {
    const row = await this.models.ApiKey.findOne({ where: { ...this.ownedBy(owner), id } });
    if (!row || !(await this.models.ApiKey.destroy({ where: { id: row.id } }))) throw new NotFoundError(`API key '${id}' not found`);
    const revoked = await this.bury('api-key', row.key_hash, row, 'revoked');
    await this.bearers.forget({ hashes: [row.key_hash] }, [row.key_hash]);
    return revoked;
  }

  /**
   * A website token acts as its creator; `permissions` narrows it to a subset of the creator's (API
   * decisions, "Roles and rules"): an unknown permission or one the creator lacks is 400 VALIDATION_ERROR.
   */
  async createWebsiteToken(
    owner: Identity,
    input: { name: string; expiresAt?: string; permissions?: string[] },
    known: (p: string) => boolean = () => true,
  ) {
    const permissions = input.permissions ? [...new Set(input.permissions)] : null;
    for (const p of permissions ?? []) {
      if (!known(p))
        throw new ValidationError(`Unknown permission '${p}'`, [{ path: 'body.permissions', message: `unknown permission ${p}` }]);
      if (!hasPermission(owner, p))
        throw new ValidationError(`You cannot give a token the permission '${p}', which you do not have`, [
          { path: 'body.permissions', message: `not yours: ${p}` },
        ]);
    }
    const token = randomBytes(32).toString('base64url');
    const row = await this.models.WebsiteToken.create({
      id: randomUUID(),
      tenant_id: owner.tenantId,
      user_id: owner.userId,
      name: input.name,
      token_hash: sha256(token),
      expires_at: expiryOf(input.expiresAt),
      permissions: permissions ? JSON.stringify(permissions) : null,
      created_at: Date.now(),
    });
    return { _id: row.id, name: row.name, token, expiresAt: iso(row.expires_at), permissions };
  }

  async listWebsiteTokens(owner: Identity) {
    const rows = await this.models.WebsiteToken.findAll({ where: this.ownedBy(owner), order: [['created_at', 'DESC']] });
    return rows.map((r) => bearerListing(r, r.permissions ? (JSON.parse(r.permissions) as string[]) : null));
  }

  async revokeWebsiteToken(owner: Identity, id: string): Promise<RevokedBearer> {
    const row = await this.models.WebsiteToken.findOne({ where: { ...this.ownedBy(owner), id } });
    if (!row || !(await this.models.WebsiteToken.destroy({ where: { id: row.id } })))
      throw new NotFoundError(`Website token '${id}' not found`);
    const revoked = await this.bury('website-token', row.token_hash, row, 'revoked');
    await this.bearers.forget({ hashes: [row.token_hash] }, [row.token_hash]);
    return revoked;
  }

  /** Keeps the hash of a revoked value (not the value): a later use of it is recognised as such. */
  private async bury(
    kind: RevokedBearer['kind'],
    hash: string,
    row: { id: string; tenant_id: string; user_id: string; name: string },
    reason: RevokedBearer['reason'],
  ): Promise<RevokedBearer> {
    const revoked: RevokedBearer = { kind, id: row.id, tenantId: row.tenant_id, userId: row.user_id, name: row.name, reason };
    await this.models.ApiKey.sequelize!.query(
      'INSERT INTO auth_revoked_bearers (token_hash, kind, token_id, tenant_id, user_id, name, reason, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      { replacements: [hash, kind, row.id, row.tenant_id, row.user_id, row.name.slice(0, 191), reason, Date.now()] },
    );
    return revoked;
  }

  /** The revoked key or token a bearer value was, or null (never issued, or revoked over 90 days ago). */
  async revokedBearer(raw: string): Promise<RevokedBearer | null> {
    const rows = await this.models.ApiKey.sequelize!.query<{
      kind: string;
      token_id: string;
      tenant_id: string;
      user_id: string;
      name: string;
      reason: string;
    }>('SELECT kind, token_id, tenant_id, user_id, name, reason FROM auth_revoked_bearers WHERE token_hash = ?', {
      replacements: [sha256(raw)],
      type: QueryTypes.SELECT,
    });
    const row = rows[0];
    return row
      ? {
          kind: row.kind as RevokedBearer['kind'],
          id: row.token_id,
          tenantId: row.tenant_id,
          userId: row.user_id,
          name: row.name,
          reason: row.reason as RevokedBearer['reason'],
        }
      : null;
  }

  /** Admins manage every key of their tenant; everyone else their own. */
  private ownedBy(owner: Identity) {
    return isAdmin(owner) ? { tenant_id: owner.tenantId } : { tenant_id: owner.tenantId, user_id: owner.userId };
  }

  /** The identity behind a bearer value, or null when it is unknown, expired or its creator cannot act. */
  resolveBearer(raw: string): Promise<Identity | null> {
    return this.bearers.identity(sha256(raw), raw.startsWith('sck_') ? 'api-key' : 'website-token');
  }

  /**
   * The database layer of resolveBearer: one query for the key or token (unexpired) with its creator's
   * role, blocked flag and the role's permissions; null when the creator is blocked or has no role.
   */
  private async lookup(hash: string, kind: BearerKind): Promise<BearerSnapshot | null> {
    const apiKey = kind === 'api-key';
    const table = apiKey ? 'auth_api_keys' : 'auth_website_tokens';
    const rows = await this.models.ApiKey.sequelize!.query<BearerRow>(
      `SELECT t.id, t.user_id, t.tenant_id, t.expires_at, t.last_used_at, t.permissions, ${apiKey ? 't.scope' : 'NULL AS scope'},
              u.role, u.blocked, r.permissions AS role_permissions
         FROM ${table} t
         JOIN auth_users u ON u.id = t.user_id AND u.tenant_id = t.tenant_id
         LEFT JOIN auth_roles r ON r.tenant_id = u.tenant_id AND r.name = u.role
        WHERE t.${apiKey ? 'key_hash' : 'token_hash'} = ? AND (t.expires_at IS NULL OR t.expires_at > ?)`,
      { replacements: [hash, Date.now()], type: QueryTypes.SELECT },
    );
    const row = rows[0];
    if (!row || row.blocked === true || Number(row.blocked) === 1 || row.role === null) return null;
    return {
      kind,
      id: row.id,
      userId: row.user_id,
      tenantId: row.tenant_id,
      role: row.role,
      rolePermissions: row.role_permissions ? (JSON.parse(row.role_permissions) as string[]) : [],
      keyPermissions: row.permissions ? (JSON.parse(row.permissions) as string[]) : null,
      keyScope: row.scope ? (JSON.parse(row.scope) as KeyScope[]) : null,
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    };
  }

  /** Records last use (the cache calls it at most once a minute per key or token and instance); never blocks a request. */
  private touch(kind: BearerKind, id: string, now: number): void {
    const model = (kind === 'api-key' ? this.models.ApiKey : this.models.WebsiteToken) as typeof ApiKey;
    void model.update({ last_used_at: now }, { where: { id } }).catch(() => undefined);
  }

  /** The hashes of the user's keys and tokens (their shared cache keys). */
  private async hashesOf(where: string, replacements: string[]): Promise<string[]> {
    const rows = await this.models.ApiKey.sequelize!.query<{ h: string }>(
      `SELECT t.key_hash AS h FROM auth_api_keys t JOIN auth_users u ON u.id = t.user_id WHERE ${where}
       UNION ALL SELECT t.token_hash AS h FROM auth_website_tokens t JOIN auth_users u ON u.id = t.user_id WHERE ${where}`,
      { replacements: [...replacements, ...replacements], type: QueryTypes.SELECT },
    );
    return rows.map((r) => r.h);
  }

  /** The user's role, block or existence changed: their keys and tokens are read again everywhere. */
  async userChanged(userId: string): Promise<void> {
    await this.bearers.forget({ userId }, await this.hashesOf('u.id = ?', [userId]));
  }

  /** A role's permissions changed: the keys and tokens of every user holding it are read again everywhere. */
  async roleChanged(tenantId: string, role: string): Promise<void> {
    await this.bearers.forget({ tenantId, role }, await this.hashesOf('u.tenant_id = ? AND u.role = ?', [tenantId, role]));
  }

  /** A deleted user's keys and tokens go with them. */
  async deleteAllForUser(userId: string): Promise<void> {
    await this.revokeAllForUser(userId, 'user-deleted');
  }

  /**
   * Revokes every API key and website token of the user at once, on every instance (a deleted user, a
   * password reset, or a password change that asks for it). Resolves how many of each went.
   */
  async revokeAllForUser(userId: string, reason: RevokedBearer['reason']): Promise<{ apiKeys: number; websiteTokens: number }> {
    const hashes: string[] = [];
    const counts = { apiKeys: 0, websiteTokens: 0 };
    for (const key of await this.models.ApiKey.findAll({ where: { user_id: userId } })) {
      hashes.push(key.key_hash);
      if (await this.models.ApiKey.destroy({ where: { id: key.id } })) {
        await this.bury('api-key', key.key_hash, key, reason);
        counts.apiKeys++;
      }
    }
    for (const token of await this.models.WebsiteToken.findAll({ where: { user_id: userId } })) {
      hashes.push(token.token_hash);
      if (await this.models.WebsiteToken.destroy({ where: { id: token.id } })) {
        await this.bury('website-token', token.token_hash, token, reason);
        counts.websiteTokens++;
      }
    }
    await this.bearers.forget({ userId }, hashes);
    return counts;
  }

  /** The spec's background purge of expired tokens. */
  async purgeExpired(): Promise<number> {
    const where = { expires_at: { [Op.lte]: Date.now() } };
    await this.models.ApiKey.sequelize!.query('DELETE FROM auth_revoked_bearers WHERE revoked_at < ?', {
      replacements: [Date.now() - TOMBSTONE_DAYS * 24 * 3600 * 1000],
    });
    return (await this.models.ApiKey.destroy({ where })) + (await this.models.WebsiteToken.destroy({ where }));
  }
}

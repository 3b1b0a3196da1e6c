import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Op, QueryTypes } from 'sequelize';
import { ForbiddenError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import { hasPermission, isAdmin, type Identity } from '../../kernel/http/identity.js';
import { ApiKey } from './models/api-key.js';
import { WebsiteToken } from './models/website-token.js';

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
 * blocked or deleted.
 */
/** How long the hash of a revoked key or token is kept to recognise its use. */
export const TOMBSTONE_DAYS = 90;

export interface RevokedBearer {
  kind: 'api-key' | 'website-token';
  id: string;
  tenantId: string;
  userId: string;
  name: string;
  reason: 'revoked' | 'user-deleted';
}

interface BearerRow {
  id: string;
  user_id: string;
  tenant_id: string;
  last_used_at: number | null;
  permissions: string | null;
  role: string | null;
  blocked: boolean | number;
  role_permissions: string | null;
}

export class TokensService {
  async createApiKey(owner: Identity, input: { name: string; permissions: string[]; expiresAt?: string }, known: (p: string) => boolean) {
    const permissions = [...new Set(input.permissions)];
    for (const p of permissions) {
      if (!known(p))
        throw new ValidationError(`Unknown permission '${p}'`, [{ path: 'body.permissions', message: `unknown permission ${p}` }]);
      if (!hasPermission(owner, p)) throw new ForbiddenError(`You cannot give a key the permission '${p}', which you do not have`);
    }
    const key = `sck_${randomBytes(32).toString('base64url')}`;
    const row = await ApiKey.create({
      id: randomUUID(),
      tenant_id: owner.tenantId,
      user_id: owner.userId,
      name: input.name,
      key_hash: sha256(key),
      permissions: JSON.stringify(permissions),
      expires_at: expiryOf(input.expiresAt),
      created_at: Date.now(),
    });
    return { _id: row.id, name: row.name, key, permissions, expiresAt: iso(row.expires_at) };
  }

  async listApiKeys(owner: Identity) {
    const rows = await ApiKey.findAll({ where: this.ownedBy(owner), order: [['created_at', 'DESC']] });
    return rows.map((r) => ({
      _id: r.id,
      name: r.name,
      permissions: JSON.parse(r.permissions) as string[],
      expiresAt: iso(r.expires_at),
      lastUsedAt: iso(r.last_used_at),
      createdAt: iso(r.created_at)!,
    }));
  }

  /** Revokes at once; what is left is a tombstone of its hash (see revokedBearer). Resolves the key's name and owner. */
  async revokeApiKey(owner: Identity, id: string): Promise<RevokedBearer> {
    const row = await ApiKey.findOne({ where: { ...this.ownedBy(owner), id } });
    if (!row || !(await ApiKey.destroy({ where: { id: row.id } }))) throw new NotFoundError(`API key '${id}' not found`);
    return this.bury('api-key', row.key_hash, row, 'revoked');
  }

  async createWebsiteToken(owner: Identity, input: { name: string; expiresAt?: string }) {
    const token = randomBytes(32).toString('base64url');
    const row = await WebsiteToken.create({
      id: randomUUID(),
      tenant_id: owner.tenantId,
      user_id: owner.userId,
      name: input.name,
      token_hash: sha256(token),
      expires_at: expiryOf(input.expiresAt),
      created_at: Date.now(),
    });
    return { _id: row.id, name: row.name, token, expiresAt: iso(row.expires_at) };
  }

  async listWebsiteTokens(owner: Identity) {
    const rows = await WebsiteToken.findAll({ where: this.ownedBy(owner), order: [['created_at', 'DESC']] });
    return rows.map((r) => ({
      _id: r.id,
      name: r.name,
      expiresAt: iso(r.expires_at),
      lastUsedAt: iso(r.last_used_at),
      createdAt: iso(r.created_at)!,
    }));
  }

  async revokeWebsiteToken(owner: Identity, id: string): Promise<RevokedBearer> {
    const row = await WebsiteToken.findOne({ where: { ...this.ownedBy(owner), id } });
    if (!row || !(await WebsiteToken.destroy({ where: { id: row.id } }))) throw new NotFoundError(`Website token '${id}' not found`);
    return this.bury('website-token', row.token_hash, row, 'revoked');
  }

  /** Keeps the hash of a revoked value (not the value): a later use of it is recognised as such. */
  private async bury(
    kind: RevokedBearer['kind'],
    hash: string,
    row: { id: string; tenant_id: string; user_id: string; name: string },
    reason: RevokedBearer['reason'],
  ): Promise<RevokedBearer> {
    const revoked: RevokedBearer = { kind, id: row.id, tenantId: row.tenant_id, userId: row.user_id, name: row.name, reason };
    await ApiKey.sequelize!.query(
      'INSERT INTO auth_revoked_bearers (token_hash, kind, token_id, tenant_id, user_id, name, reason, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      { replacements: [hash, kind, row.id, row.tenant_id, row.user_id, row.name.slice(0, 191), reason, Date.now()] },
    );
    return revoked;
  }

  /** The revoked key or token a bearer value was, or null (never issued, or revoked over 90 days ago). */
  async revokedBearer(raw: string): Promise<RevokedBearer | null> {
    const rows = await ApiKey.sequelize!.query<{
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
  async resolveBearer(raw: string): Promise<Identity | null> {
    const now = Date.now();
    const apiKey = raw.startsWith('sck_');
    const row = await this.lookup(apiKey ? 'auth_api_keys' : 'auth_website_tokens', apiKey ? 'key_hash' : 'token_hash', sha256(raw), now);
    if (!row || row.blocked === true || Number(row.blocked) === 1 || row.role === null) return null;
    const creator: Identity = {
      kind: 'user',
      userId: row.user_id,
      role: row.role,
      permissions: row.role_permissions ? (JSON.parse(row.role_permissions) as string[]) : [],
      tenantId: row.tenant_id,
    };
    this.touch(apiKey ? ApiKey : WebsiteToken, row.id, row.last_used_at, now);
    if (apiKey) {
      const granted = (JSON.parse(row.permissions!) as string[]).filter((p) => hasPermission(creator, p));
      return {
        kind: 'apiKey',
        userId: row.user_id,
        role: 'api-key',
        permissions: granted,
        tenantId: row.tenant_id,
        meta: { apiKeyId: row.id },
      };
    }
    return { ...creator, kind: 'websiteToken', meta: { websiteTokenId: row.id } };
  }

  /**
   * One query per bearer request: the key or token (unexpired) with its creator's role, blocked flag and
   * the role's permissions, all read now, so a revoked key, a blocked creator or a changed role count at once.
   */
  private async lookup(table: 'auth_api_keys' | 'auth_website_tokens', hashColumn: 'key_hash' | 'token_hash', hash: string, now: number) {
    const sequelize = ApiKey.sequelize!;
    const rows = await sequelize.query<BearerRow>(
      `SELECT t.id, t.user_id, t.tenant_id, t.last_used_at, ${table === 'auth_api_keys' ? 't.permissions' : 'NULL AS permissions'},
              u.role, u.blocked, r.permissions AS role_permissions
         FROM ${table} t
         JOIN auth_users u ON u.id = t.user_id AND u.tenant_id = t.tenant_id
         LEFT JOIN auth_roles r ON r.tenant_id = u.tenant_id AND r.name = u.role
        WHERE t.${hashColumn} = ? AND (t.expires_at IS NULL OR t.expires_at > ?)`,
      { replacements: [hash, now], type: QueryTypes.SELECT },
    );
    return rows[0] ?? null;
  }

  /** Records last use at most once a minute. */
  private touch(model: typeof ApiKey | typeof WebsiteToken, id: string, last: number | null, now: number): void {
    if (last !== null && now - Number(last) < 60000) return;
    void (model as typeof ApiKey).update({ last_used_at: now }, { where: { id } }).catch(() => undefined);
  }

  /** A deleted user's keys and tokens go with them. */
  async deleteAllForUser(userId: string): Promise<void> {
    for (const key of await ApiKey.findAll({ where: { user_id: userId } })) {
      if (await ApiKey.destroy({ where: { id: key.id } })) await this.bury('api-key', key.key_hash, key, 'user-deleted');
    }
    for (const token of await WebsiteToken.findAll({ where: { user_id: userId } })) {
      if (await WebsiteToken.destroy({ where: { id: token.id } }))
        await this.bury('website-token', token.token_hash, token, 'user-deleted');
    }
  }

  /** The spec's background purge of expired tokens. */
  async purgeExpired(): Promise<number> {
    const where = { expires_at: { [Op.lte]: Date.now() } };
    await ApiKey.sequelize!.query('DELETE FROM auth_revoked_bearers WHERE revoked_at < ?', {
      replacements: [Date.now() - TOMBSTONE_DAYS * 24 * 3600 * 1000],
    });
    return (await ApiKey.destroy({ where })) + (await WebsiteToken.destroy({ where }));
  }
}

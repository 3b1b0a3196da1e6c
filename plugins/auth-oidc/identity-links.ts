import { randomBytes, randomUUID } from 'node:crypto';
import { UniqueConstraintError } from 'sequelize';
import { AppError, ModelService, NotFoundError } from '../../kernel/sdk.js';
import type { UsersService } from '../auth/public.js';
import { OidcNoAccountError } from './errors.js';
import { OidcIdentity } from './models/oidc-identity.js';
import type { IdTokenClaims } from './oidc-clients.js';
import type { ProviderSettings } from './provider-settings.js';

const iso = (ms: number) => new Date(Number(ms)).toISOString();

/**
 * Provider identities linked to users. A known (provider, subject) signs in its user; otherwise a user
 * with the same email is linked only when the provider says the email is verified; otherwise sign-up
 * (when the provider allows it) creates a user, again only for a verified email, so nobody can claim
 * an address they do not own.
 */
export class IdentityLinks extends ModelService({ OidcIdentity })<UsersService> {
  private get users(): UsersService {
    return this.deps;
  }

  async userFor(tenantId: string, provider: ProviderSettings, claims: IdTokenClaims): Promise<string> {
    const email =
      typeof claims.email === 'string' && /^[^@\s]+@[^@\s]+$/.test(claims.email.trim()) && claims.email.length <= 191
        ? claims.email.trim().toLowerCase()
        : null;
    const verified = claims.email_verified === true || claims.email_verified === 'true';
    const link = await this.models.OidcIdentity.findOne({ where: { tenant_id: tenantId, provider: provider.id, subject: claims.sub } });
    if (link) {
      const user = await this.users.findById(link.user_id);
      if (user && user.tenant_id === tenantId) {
        await link.update({ email: email ?? link.email, last_login_at: Date.now() });
        return user.id;
      }
      await link.destroy(); // its user was deleted: the identity is unknown again
    }
    const existing = email ? await this.users.findByEmail(email, tenantId) : null;
    if (existing) {
      if (!verified)
        throw new OidcNoAccountError(
          `An account with this email exists, but ${provider.displayName} has not verified the address; sign in with your password`,
        );
      return this.link(tenantId, provider.id, claims.sub, existing.id, email);
    }
    if (!provider.allowSignUp)
      throw new OidcNoAccountError(`No account here belongs to this ${provider.displayName} identity; ask an administrator for one`);
    if (!email || !verified)
      throw new OidcNoAccountError(`${provider.displayName} did not share a verified email address, which signing up needs`);
    return this.link(tenantId, provider.id, claims.sub, await this.signUp(email, provider, tenantId), email);
  }

  /** A new user with the provider's default role and a random password nobody knows. */
  private async signUp(email: string, provider: ProviderSettings, tenantId: string): Promise<string> {
    try {
      return (await this.users.create({ email, password: randomBytes(32).toString('hex'), role: provider.defaultRole, tenantId }))._id;
    } catch (err) {
      // Created meanwhile by a concurrent sign-in with the same verified email: link that one.
      const raced = err instanceof AppError && err.code === 'USER_EXISTS' ? await this.users.findByEmail(email, tenantId) : null;
      if (raced) return raced.id;
      throw err;
    }
  }

  private async link(tenantId: string, provider: string, subject: string, userId: string, email: string | null): Promise<string> {
    const now = Date.now();
    try {
      await this.models.OidcIdentity.create({
        id: randomUUID(),
        tenant_id: tenantId,
        provider,
        subject,
        user_id: userId,
        email,
        created_at: now,
        last_login_at: now,
      });
      return userId;
    } catch (err) {
      if (!(err instanceof UniqueConstraintError)) throw err;
      const winner = await this.models.OidcIdentity.findOne({ where: { tenant_id: tenantId, provider, subject } });
      if (!winner) throw err;
      return winner.user_id;
    }
  }

  async list(userId: string) {
    const rows = await this.models.OidcIdentity.findAll({ where: { user_id: userId }, order: [['created_at', 'ASC']] });
    return rows.map((r) => ({
      _id: r.id,
      provider: r.provider,
      email: r.email,
      createdAt: iso(r.created_at),
      lastLoginAt: iso(r.last_login_at),
    }));
  }

  async unlink(userId: string, id: string): Promise<void> {
    if (!(await this.models.OidcIdentity.destroy({ where: { id, user_id: userId } })))
      throw new NotFoundError(`Linked identity '${id}' not found`);
  }
}

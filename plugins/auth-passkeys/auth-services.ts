import type { Context } from 'koa';

/**
 * What this plugin uses of the auth plugin, reached through the container only (declared here rather
 * than imported, so the two plugins stay apart).
 */
export interface AuthUser {
  id: string;
  tenant_id: string;
  email: string;
  username: string;
}

export interface UsersLookup {
  findById(id: string): Promise<AuthUser | null>;
  findByEmail(email: string, tenantId: string): Promise<AuthUser | null>;
}

export interface SignIn {
  /** Refuses a blocked user; then the 2FA step unless secondFactorDone, otherwise a session cookie. */
  complete(ctx: Context, userId: string, options?: { secondFactorDone?: boolean }): Promise<unknown>;
}

export interface Tenants {
  fromHostname(hostname: string): Promise<string>;
}

export interface Signer {
  sign(text: string): Promise<string>;
  verifySignature(text: string, signature: string): Promise<boolean>;
}

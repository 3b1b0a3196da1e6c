import type { Context } from 'koa';

/**
 * The few members of the auth plugin's container keys this plugin uses, declared here so the two
 * plugins meet only through the container.
 */
export interface UserRow {
  id: string;
  tenant_id: string;
  email: string;
}

export interface UsersPort {
  findById(id: string): Promise<UserRow | null>;
  findByEmail(email: string, tenantId: string): Promise<UserRow | null>;
  create(input: { email: string; password: string; role: string; username?: string; tenantId?: string }): Promise<{ _id: string }>;
}

export interface SignInPort {
  complete(ctx: Context, userId: string, options?: { secondFactorDone?: boolean }): Promise<{ requires2FA: true; userId: string } | { user: unknown }>;
}

export interface TenantsPort {
  fromHostname(hostname: string): Promise<string>;
}

export interface AuthSecretsPort {
  sign(text: string): Promise<string>;
}

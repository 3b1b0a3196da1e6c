/**
 * The auth plugin's public surface (type-only): declares its container keys, so `scope.users`,
 * `scope.sessions`, ... are typed in route handlers.
 */
import type { Context } from 'koa';
import type { EmailFlows } from './email-flows.js';
import type { EmailTokensService } from './email-tokens-service.js';
import type { AuthSecrets } from './secrets.js';
import type { SessionsService } from './sessions-service.js';
import type { TenantsService } from './tenants-service.js';
import type { TokensService } from './tokens-service.js';
import type { TwoFactorService } from './two-factor-service.js';
import type { PublicUser, UsersService } from './users-service.js';

export type { EmailFlows } from './email-flows.js';
export type { EmailTokensService } from './email-tokens-service.js';
export type { AuthSecrets } from './secrets.js';
export type { SessionsService } from './sessions-service.js';
export type { TenantsService } from './tenants-service.js';
export type { TokensService } from './tokens-service.js';
export type { TwoFactorService } from './two-factor-service.js';
export type { UsersService } from './users-service.js';

/** The container key `signIn`: sessions for sign-in plugins that prove the first factor their own way (see index.ts). */
export interface SignInService {
  /** Starts a session for a user and sets the cookie (no second factor asked). */
  startSession(ctx: Context, userId: string): Promise<void>;
  /** Refuses a blocked user; then the 2FA step unless secondFactorDone, otherwise a session cookie. */
  complete(ctx: Context, userId: string, options?: { secondFactorDone?: boolean }): Promise<{ requires2FA: true; userId: string } | { user: PublicUser }>;
}

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    tenants: TenantsService;
    authSecrets: AuthSecrets;
    users: UsersService;
    sessions: SessionsService;
    signIn: SignInService;
    tokens: TokensService;
    twoFactor: TwoFactorService;
    emailTokens: EmailTokensService;
    emailFlows: EmailFlows;
  }
}

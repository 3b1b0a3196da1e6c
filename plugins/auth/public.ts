/**
 * The auth plugin's public surface: declares its container keys, so `scope.users`, `scope.sessions`,
 * ... are typed in route handlers, and exports the types of the services behind them (the real
 * classes, imported as types only) for the plugins that take them as dependencies (auth-oidc,
 * auth-passkeys, ...). Other plugins import these types from here, never from the auth plugin's files.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { defineEvent, EVENTS_RESYNC, type EventBus, type Identity } from '../../kernel/sdk.js';
import type { BearerMatch } from './bearer-cache.js';
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
/** A user row as `users.findById` / `users.findByEmail` return it (credential columns included: never send it to a client). */
export type { User as UserRecord } from './models/user.js';

/** Event telling every instance to drop a session from its in-process layer; payload `{ idHash }`. */
export const SESSION_REVOKED = defineEvent<{ idHash: string }>('auth:session-revoked');
/**
 * Event telling every instance to drop cached API keys and website tokens (bearer-cache.ts); payload
 * `{ hashes?, userId?, tenantId?, role? }` (SHA-256 of the values, never the values): entries matching every
 * field given go.
 */
export const BEARER_CHANGED = defineEvent<BearerMatch>('auth:bearer-changed');
/**
 * A role's permissions or name changed, or it was deleted (payload `{ tenantId, role }`): every instance
 * drops the cached sessions of users holding it (API keys and website tokens go through BEARER_CHANGED).
 */
export const ROLE_CHANGED = defineEvent<{ tenantId: string; role: string }>('auth:role-changed');
/**
 * A custom role was renamed (payload `{ tenantId, from, to }`), published before the ROLE_CHANGED of its old name:
 * whatever names roles (e.g. the roles of review stages) may follow the rename.
 */
export const ROLE_RENAMED = defineEvent<{ tenantId: string; from: string; to: string }>('auth:role-renamed');
/** User-management events (payload UserEvent), also GraphQL subscriptions. */
export const USER_EVENTS = { create: 'on:user_create', update: 'on:user_update', delete: 'on:user_delete' } as const;

/**
 * The events after which an identity may have ended or changed: a session revoked, signed out, rotated or
 * its user's role, block or existence changed (SESSION_REVOKED), a role's permissions changed (ROLE_CHANGED), an API key or website token revoked or its
 * creator changed (BEARER_CHANGED), a user updated or deleted, or events of other instances missed
 * (EVENTS_RESYNC). Long-lived streams (GraphQL WebSockets, server-sent events) resolve their identity
 * again after one that concerns them (`onIdentityChange`).
 */
export const IDENTITY_CHANGE_EVENTS = [
  SESSION_REVOKED,
  ROLE_CHANGED,
  BEARER_CHANGED,
  USER_EVENTS.update,
  USER_EVENTS.delete,
  EVENTS_RESYNC,
] as const;

/** The SHA-256 of a bearer value as BEARER_CHANGED names it (`Authorization: Bearer <value>`, or the bare value). */
export function bearerHash(authorization: string | undefined): string | undefined {
  const value = authorization
    ?.trim()
    .replace(/^Bearer\s+/i, '')
    .trim();
  return value ? createHash('sha256').update(value).digest('hex') : undefined;
}

/**
 * Whether one of IDENTITY_CHANGE_EVENTS concerns an identity (`bearer`: the SHA-256 of the stream's bearer
 * value, when it has one). Errs on the side of yes: a field it cannot compare counts as a match, since the
 * answer only decides which identities are resolved again.
 */
export function identityConcerned(name: string, payload: unknown, identity: Identity, bearer?: string): boolean {
  const p = (payload ?? {}) as Record<string, unknown>;
  const given = (v: unknown): v is string => typeof v === 'string';
  switch (name) {
    case SESSION_REVOKED:
      return given(p.idHash) && identity.meta?.sessionHash === p.idHash;
    case ROLE_CHANGED:
      return (
        identity.tenantId === p.tenantId && (identity.role === p.role || identity.kind === 'apiKey' || identity.kind === 'websiteToken')
      );
    case BEARER_CHANGED: {
      if (identity.kind !== 'apiKey' && identity.kind !== 'websiteToken') return false;
      if (Array.isArray(p.hashes) && bearer !== undefined && !p.hashes.includes(bearer)) return false;
      if (given(p.userId) && p.userId !== identity.userId) return false;
      if (given(p.tenantId) && p.tenantId !== identity.tenantId) return false;
      // An API key acts as role 'api-key': its creator's role is not known here.
      if (given(p.role) && identity.kind === 'websiteToken' && p.role !== identity.role) return false;
      return true;
    }
    case USER_EVENTS.update:
    case USER_EVENTS.delete: {
      const user = (p.user ?? {}) as { _id?: unknown };
      return identity.userId !== null && user._id === identity.userId;
    }
    case EVENTS_RESYNC:
      return true;
    default:
      return false;
  }
}

/**
 * Calls `handler` after every IDENTITY_CHANGE_EVENTS event, with a test of which identities it concerns.
 * The call comes after the event's other handlers have run (the auth plugin's in-memory layers have dropped
 * their copies by then), so an identity resolved in it is read afresh. Returns the unsubscribe function.
 */
export function onIdentityChange(
  events: Pick<EventBus, 'subscribe'>,
  handler: (concerns: (identity: Identity, bearer?: string) => boolean) => void,
): () => void {
  const offs = IDENTITY_CHANGE_EVENTS.map((name) =>
    events.subscribe<unknown>(name, (event) => {
      setImmediate(() => handler((identity, bearer) => identityConcerned(name, event.payload, identity, bearer)));
    }),
  );
  return () => {
    for (const off of offs) off();
  };
}
/** The guest role's permissions of a tenant changed (payload `{ tenantId }`): every instance drops its copy. */
export const GUEST_GRANTS_CHANGED = defineEvent<{ tenantId: string }>('auth:guest-grants-changed');
/** A tenant was created (payload `{}`): every instance drops its hostname -> tenant map. */
export const TENANTS_CHANGED = defineEvent('auth:tenants-changed');
/** A second-factor verification at sign-in failed (payload TwoFactorFailedEvent). */
export const TWO_FACTOR_FAILED = defineEvent<TwoFactorFailedEvent>('auth:two-factor-failed');

export interface UserEvent {
  tenantId: string;
  user: PublicUser;
  /** on:user_update after a role change or (un)blocking. */
  role?: string;
  blocked?: boolean;
}

/** Carries no code and no token: why it failed, which kind of code was tried, and the account when the pending sign-in matched. */
export interface TwoFactorFailedEvent {
  reason: 'no-pending-sign-in' | 'locked' | 'invalid-code' | 'code-already-used';
  method: 'totp' | 'backup';
  /** The account of this client's pending sign-in; null when there was none (the request named an account it had not signed in to). */
  userId: string | null;
}

/** The container key `signIn`: sessions for sign-in plugins that prove the first factor their own way (see index.ts). */
export interface SignInService {
  /**
   * Starts a session for a user and sets the cookie (no second factor asked). `passwordProven`: the
   * caller has just checked (or set) the user's password, so the session opens the sudo-mode window.
   */
  startSession(ctx: Context, userId: string, options?: { passwordProven?: boolean }): Promise<void>;
  /** Refuses a blocked user; then the 2FA step unless secondFactorDone, otherwise a session cookie. */
  complete(
    ctx: Context,
    userId: string,
    options?: { secondFactorDone?: boolean },
  ): Promise<{ requires2FA: true; userId: string } | { user: PublicUser }>;
}

/**
 * What else decides a content action for a role besides its permissions and rules, for GET /api/roles/:id/explain
 * (`notes`): the review stages plugin registers it as `explainNotes` (publishing tied to a stage). Each note is a
 * sentence; none when nothing else decides.
 */
export interface ExplainNotes {
  notes(tenantId: string, query: { role: string; collection: string; action: string }): Promise<string[]>;
}

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    /** Registered by the review stages plugin (ExplainNotes); absent without it. */
    explainNotes: ExplainNotes;
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

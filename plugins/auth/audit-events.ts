import type { Context } from 'koa';
import {
  type AuditInput,
  recordRequestAudit,
  requestAuditFields,
  type AuditTarget,
  type Logger,
  type RouteContext,
  type RouteDefinition,
} from '../../kernel/sdk.js';
import { AccountBlockedError, AccountLockedError, InvalidCredentialsError } from './errors.js';
import type { User } from './models/user.js';
import type { LockScope, SignInNotes } from './users-service.js';
import { ACCOUNT_MAX_FAILED_ATTEMPTS, LOCKOUT_MS, MAX_FAILED_ATTEMPTS } from './users-service.js';

/**
 * The auth plugin's audit entries. Rules: never a secret (no password, token, key, code or cookie: only
 * ids, names, counts and reasons); accounts are named by their stored e-mail address (what an admin
 * sees in the user list), never by text a client typed: a failed sign-in for an unknown address does
 * not repeat it (people type passwords into the e-mail field).
 */
export interface AuthAuditEvent {
  action: `auth.${string}`;
  level: NonNullable<AuditInput['level']>;
  message: string;
  outcome?: AuditInput['outcome'];
  /** Default: the request's identity. A sign-in names the account it is for. */
  actor?: { userId: string | null; tenantId?: string };
  target?: AuditTarget;
  details?: Record<string, unknown>;
}

export function auditAuth(ctx: Context, event: AuthAuditEvent): Promise<void> {
  const { action, outcome = 'success', ...rest } = event;
  return recordRequestAudit(ctx, { domain: 'auth', operation: action.slice('auth.'.length).slice(0, 64), action, outcome, ...rest });
}

export const userTarget = (user: { id: string } | { _id: string } | string): AuditTarget => ({
  type: 'user',
  id: typeof user === 'string' ? user : 'id' in user ? user.id : user._id,
});

/** The account as entries name it: its stored e-mail address. */
export const who = (user: { email: string }) => user.email;

export type SignInMethod = 'password' | 'totp' | 'backup-code' | 'magic-link' | 'oidc' | 'passkey' | 'invitation';

/** A completed sign-in (a session now exists), or the first factor passed and the second is due. */
export function auditSignIn(
  ctx: Context,
  user: User,
  method: SignInMethod,
  result: { requires2FA?: boolean } | unknown = {},
  extra: Record<string, unknown> = {},
): Promise<void> {
  const pending = typeof result === 'object' && result !== null && (result as { requires2FA?: boolean }).requires2FA === true;
  return auditAuth(ctx, {
    action: pending ? 'auth.sign-in.second-factor-required' : 'auth.sign-in.succeeded',
    level: 'low',
    message: pending
      ? `Sign-in of ${who(user)} by ${method}: second factor required`
      : `${who(user)} signed in (${method === 'password' ? 'password' : method})`,
    actor: { userId: user.id, tenantId: user.tenant_id },
    target: userTarget(user),
    details: { method, ...extra },
  });
}

/**
 * The account was locked by the failure just recorded: for the known device it came from (five in a
 * row from it, `client`) or for every unknown client (five in a row from them, `account`). `details.scope` says which.
 */
export function auditLockout(ctx: Context, user: User, via: string, scope: LockScope = 'account'): Promise<void> {
  const attempts = scope === 'client' ? MAX_FAILED_ATTEMPTS : ACCOUNT_MAX_FAILED_ATTEMPTS;
  const forWhom = scope === 'client' ? 'for one known device' : 'for unknown clients';
  return auditAuth(ctx, {
    action: 'auth.lockout.started',
    level: 'high',
    outcome: 'failure',
    message: `Account ${who(user)} locked for ${LOCKOUT_MS / 60000} minutes ${forWhom} after ${attempts} failed attempts${scope === 'client' ? ' from it' : ''} (${via})`,
    actor: { userId: user.id, tenantId: user.tenant_id },
    target: userTarget(user),
    details: { via, scope, attempts, lockoutMinutes: LOCKOUT_MS / 60000 },
  });
}

/** A lock ended: it expired (seen at the next sign-in), a password reset or a magic-link sign-in cleared it. */
export function auditUnlock(
  ctx: Context,
  user: User,
  how: 'expired' | 'password-reset' | 'magic-link',
  scope: LockScope = 'account',
): Promise<void> {
  const text = { expired: 'the lock expired', 'password-reset': 'password reset', 'magic-link': 'signed in with a magic link' }[how];
  return auditAuth(ctx, {
    action: 'auth.lockout.ended',
    level: 'low',
    message: `Account ${who(user)} unlocked ${scope === 'client' ? 'for one known device' : 'for unknown clients'} (${text})`,
    actor: { userId: user.id, tenantId: user.tenant_id },
    target: userTarget(user),
    details: { how, scope },
  });
}

/**
 * A refused password sign-in: wrong password, unknown account, locked or blocked account. Other errors
 * (a database failure) are not the client's doing and are not recorded as failed sign-ins.
 */
export async function auditSignInFailure(
  ctx: Context,
  err: unknown,
  notes: SignInNotes,
  tenantId: string,
  clientKind?: 'device' | 'unknown',
): Promise<void> {
  const user = notes.user ?? null;
  let reason: 'unknown-account' | 'wrong-password' | 'locked' | 'blocked';
  if (err instanceof InvalidCredentialsError) reason = user ? 'wrong-password' : 'unknown-account';
  else if (err instanceof AccountLockedError) reason = 'locked';
  else if (err instanceof AccountBlockedError) reason = 'blocked';
  else return;
  const text = {
    'unknown-account': 'no account has the e-mail address given',
    'wrong-password': 'wrong password',
    locked: notes.lockedScope === 'client' ? 'the account is locked for this device' : 'the account is locked',
    blocked: 'the account is blocked',
  }[reason];
  await auditAuth(ctx, {
    action: 'auth.sign-in.failed',
    level: 'medium',
    outcome: 'failure',
    message: user ? `Sign-in failed for ${who(user)}: ${text}` : `Sign-in failed: ${text}`,
    actor: { userId: user?.id ?? null, tenantId },
    ...(user ? { target: userTarget(user) } : {}),
    details: {
      method: 'password',
      reason,
      ...(reason === 'locked' ? { scope: notes.lockedScope ?? 'account' } : {}),
      ...(clientKind ? { client: clientKind } : {}),
    },
  });
  for (const scope of notes.lockedNow ?? []) if (user) await auditLockout(ctx, user, 'password', scope);
}

/**
 * For work that ends after the response (mails sent in the background): the request's fields are taken
 * now, and the returned function records an entry later without the request's scope.
 */
export async function deferredAuthAudit(ctx: Context): Promise<(event: AuthAuditEvent) => void> {
  const fields = await requestAuditFields(ctx);
  let audit: { record(input: AuditInput): void } | undefined;
  try {
    audit = ctx.state.scope?.cradle.audit;
  } catch {
    audit = undefined;
  }
  return (event) => {
    const { action, outcome = 'success', actor, target, details, ...rest } = event;
    try {
      audit?.record({
        domain: 'auth',
        operation: action.slice('auth.'.length).slice(0, 64),
        action,
        outcome,
        ...rest,
        actor: actor ? { userId: actor.userId, tenantId: actor.tenantId ?? fields.actor.tenantId } : fields.actor,
        details: { ...fields.details, ...(target ? { target } : {}), ...details },
      });
    } catch (err) {
      (ctx.state.logger as Logger | undefined)?.warn({ err, action }, 'audit entry not recorded');
    }
  };
}

/**
 * Sign-up with an invitation: after the handler succeeds, the invitation used, the account created and
 * the sign-in are recorded (wrapped around the handler so its own edits stay small).
 */
export function auditRegistration(route: RouteDefinition): void {
  const handler = route.handler;
  route.handler = async (context: RouteContext) => {
    const result = (await handler(context)) as { user?: { _id: string; email: string; role: string } } | undefined;
    const created = result?.user;
    if (created) {
      const actor = { userId: created._id, tenantId: context.identity.tenantId };
      const user = await context.scope.users.findById(created._id);
      if (user) actor.tenantId = user.tenant_id;
      await auditAuth(context.ctx, {
        action: 'auth.invitation.consumed',
        level: 'medium',
        message: `Invitation used by ${created.email} to create an account`,
        actor,
        target: userTarget(created),
        details: { role: created.role },
      });
      await auditAuth(context.ctx, {
        action: 'auth.user.created',
        level: 'medium',
        message: `User ${created.email} created with role ${created.role} (sign-up with an invitation)`,
        actor,
        target: userTarget(created),
        details: { role: created.role, via: 'invitation' },
      });
      if (user) await auditSignIn(context.ctx, user, 'invitation');
    }
    return result;
  };
}

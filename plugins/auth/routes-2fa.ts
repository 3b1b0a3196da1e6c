import type { Context } from 'koa';
import { z } from 'zod';
import {
  AppError,
  AuthenticationRequiredError,
  defineRoute,
  type RouteDefinition,
  type RouteRequestSchemas,
  type TypedRouteDefinition,
} from '../../kernel/sdk.js';
import type { User } from './models/user.js';
import { clearPendingLogin, consumePendingLogin, readPendingLogin } from './pending-login.js';
import { TWO_FACTOR_FAILED, type TwoFactorFailedEvent } from './public.js';
import { clientIp, setSessionCookie } from './routes.js';
import { issueDeviceCookie, lockoutClient } from './lockout.js';
import type { LockScope } from './users-service.js';
import { TwoFactorFailureError } from './errors.js';
import { auditAuth, auditLockout, auditSignIn, userTarget, who, type AuthAuditEvent } from './audit-events.js';
import { requireSudo } from './guards.js';

/** Why a second-factor verification failed, as audit entries say it. */
const TWO_FACTOR_REASONS: Record<TwoFactorFailedEvent['reason'], string> = {
  'invalid-code': 'wrong code',
  'code-already-used': 'a code that was already used',
  locked: 'the account is locked',
  'no-pending-sign-in': 'no pending sign-in on this client',
};

/** A two-factor handler: the route context (typed from the request schemas) and the signed-in user. */
type Handler<S extends RouteRequestSchemas> = (route: Parameters<TypedRouteDefinition<S>['handler']>[0], user: User) => Promise<unknown>;

/**
 * The spec's two-factor endpoints: bodies exactly as listed (not the general envelope), errors as
 * `{message}`, and unexpected failures as 500 with the spec's fixed messages.
 */
function twoFactorRoute<S extends RouteRequestSchemas>(
  def: Omit<TypedRouteDefinition<S>, 'handler' | 'envelope' | 'errorShape' | 'permission' | 'tags'> & {
    failure: string;
    handler: Handler<S>;
  },
): RouteDefinition {
  const { failure, handler, ...rest } = def;
  return defineRoute<S>({
    ...rest,
    permission: 'authenticated',
    tags: ['two-factor'],
    envelope: false,
    errorShape: 'message',
    async handler(route) {
      // Only a signed-in person (session cookie) manages their second factor; keys and tokens may not.
      if (typeof route.identity.meta?.sessionHash !== 'string' || !route.identity.userId) throw new AuthenticationRequiredError();
      const user = await route.scope.users.findById(route.identity.userId);
      if (!user) throw new AuthenticationRequiredError();
      try {
        route.ctx.body = await handler(route, user);
      } catch (err) {
        if (err instanceof AppError) throw err;
        route.logger.error({ err }, failure);
        throw new TwoFactorFailureError(failure, err);
      }
    },
  });
}

/** An audit entry about a change the signed-in user made to their own second factor. */
function auditOwn(
  ctx: Context,
  user: User,
  action: AuthAuditEvent['action'],
  level: AuthAuditEvent['level'],
  message: string,
  details?: AuthAuditEvent['details'],
) {
  return auditAuth(ctx, { action, level, message, target: userTarget(user), ...(details ? { details } : {}) });
}

type VerifyRoute = Parameters<TypedRouteDefinition<{ body: z.ZodType<{ userId: string; code: string }> }>['handler']>[0];
type CodeMethod = TwoFactorFailedEvent['method'];

const NO_PENDING = 'No pending sign-in for this account on this client; sign in with your password first';

/** A failed verification: announced on the event bus (the dashboard counts them; never with the code), audited, answered 200 {success:false}. */
async function refuse({ ctx, scope, logger }: VerifyRoute, text: string, failure: TwoFactorFailedEvent): Promise<void> {
  await scope.events.publish(TWO_FACTOR_FAILED, failure).catch((err) => logger.warn({ err }, 'failed-2FA event not published'));
  const tenantId = await scope.tenants.fromHostname(ctx.hostname);
  await auditAuth(ctx, {
    action: 'auth.2fa.failed',
    level: 'medium',
    outcome: 'failure',
    message: `Second-factor verification failed: ${TWO_FACTOR_REASONS[failure.reason]} (${failure.method === 'totp' ? 'authenticator code' : 'backup code'})`,
    actor: { userId: failure.userId, tenantId },
    ...(failure.userId ? { target: userTarget(failure.userId) } : {}),
    details: { reason: failure.reason, method: failure.method },
  });
  ctx.body = { success: false, message: text, method: failure.method, backupCodeUsed: false, reason: failure.reason };
}

/** A wrong or used code: counted toward the lockout (a lock it sets is audited), then refused. */
async function refuseCode(route: VerifyRoute, method: CodeMethod, clientHash: string, used: boolean): Promise<void> {
  const { ctx, body, scope } = route;
  const lockedNow = await scope.users.recordFailure(body.userId, clientHash).catch((): LockScope[] => []);
  if (used)
    await refuse(
      route,
      method === 'backup'
        ? 'This backup code has already been used; each one works once. Use another backup code or your authenticator app'
        : 'This code has already been used; wait for the next code in your authenticator app',
      { reason: 'code-already-used', method, userId: body.userId },
    );
  else await refuse(route, 'Invalid verification code', { reason: 'invalid-code', method, userId: body.userId });
  const locked = lockedNow.length > 0 ? await scope.users.findById(body.userId) : null;
  for (const lockScope of lockedNow) if (locked) await auditLockout(ctx, locked, 'second factor', lockScope);
}

/** The second step passed: the session cookie, the device cookie, the audit entries and the answer. */
async function signedIn(
  { ctx, body, scope }: VerifyRoute,
  check: { method: CodeMethod; remaining?: number },
  clientHash: string,
  passwordProven: boolean | undefined,
): Promise<void> {
  const user = (await scope.users.findById(body.userId))!;
  await scope.users.resetFailures(user.id, clientHash);
  const { token, session } = await scope.sessions.create(user, { userAgent: ctx.get('user-agent'), ip: clientIp(ctx) }, { passwordProven });
  setSessionCookie(ctx, token, Number(session.expires_at));
  await issueDeviceCookie(ctx, scope.authSecrets, user.id);
  await auditSignIn(ctx, user, check.method === 'backup' ? 'backup-code' : 'totp');
  if (check.method === 'backup')
    await auditAuth(ctx, {
      action: 'auth.2fa.backup-code-used',
      level: 'medium',
      message: `${who(user)} signed in with a backup code; ${check.remaining} remaining`,
      actor: { userId: user.id, tenantId: user.tenant_id },
      target: userTarget(user),
      details: { remaining: check.remaining },
    });
  ctx.body = {
    success: true,
    message:
      check.method === 'backup'
        ? `Backup code accepted; ${check.remaining} backup code${check.remaining === 1 ? '' : 's'} remaining`
        : 'Verification successful',
    method: check.method,
    backupCodeUsed: check.method === 'backup',
  };
}

/** POST /api/auth/2fa/verify: the pending sign-in, the lock, the code, then the session. */
async function verifySecondFactor(route: VerifyRoute): Promise<void> {
  const { ctx, body, scope } = route;
  const method: CodeMethod = /^\d{6}$/.test(body.code.replace(/\s+/g, '')) ? 'totp' : 'backup';
  const pending = await readPendingLogin(ctx, scope);
  if (pending?.userId !== body.userId) return refuse(route, NO_PENDING, { reason: 'no-pending-sign-in', method, userId: null });
  const client = await lockoutClient(ctx, scope, body.userId);
  const locked = await scope.users.lockedForSeconds(body.userId, client.hash);
  if (locked > 0)
    return refuse(route, `Account locked after too many failed attempts; try again in ${Math.ceil(locked / 60)} minutes`, {
      reason: 'locked',
      method,
      userId: body.userId,
    });
  const check = await scope.twoFactor.checkCode(body.userId, body.code);
  if (!check.ok) return refuseCode(route, method, client.hash, Boolean(check.used));
  // Single use: the pending sign-in is consumed before the session exists, so a second request
  // with the same cookie (a copy, or a replay) finds nothing pending, on every instance.
  if (!(await consumePendingLogin(scope, pending))) {
    clearPendingLogin(ctx);
    return refuse(route, NO_PENDING, { reason: 'no-pending-sign-in', method, userId: null });
  }
  clearPendingLogin(ctx);
  await signedIn(route, check, client.hash, pending.passwordProven);
}

export const twoFactorRoutes: RouteDefinition[] = [
  twoFactorRoute({
    method: 'POST',
    path: '/api/auth/2fa/setup',
    failure: 'Failed to initiate 2FA setup',
    summary: 'Starts 2FA setup: a secret, the otpauth:// URI and 10 backup codes, returned once; nothing is active yet',
    request: {},
    response: z.object({
      success: z.literal(true),
      data: z.object({
        secret: z.string(),
        qrCodeURL: z.string(),
        manualEntryDetails: z.record(z.string(), z.unknown()),
        backupCodes: z.array(z.string()),
      }),
      message: z.string(),
    }),
    handler: async ({ scope }, user) => ({
      success: true,
      data: await scope.twoFactor.setup(user),
      message: 'Scan the QR code, then confirm with a code from your authenticator',
    }),
  }),
  twoFactorRoute({
    method: 'POST',
    path: '/api/auth/2fa/verify-setup',
    failure: 'Failed to complete 2FA setup',
    summary: 'Confirms setup with the issued secret and a valid code; 2FA is active at once',
    request: {
      body: z.object({
        secret: z.string().min(1).max(128),
        verificationCode: z.string().min(1).max(16),
        backupCodes: z.array(z.string().max(16)).max(20),
      }),
    },
    response: z.object({ success: z.literal(true), message: z.string() }),
    handler: async ({ ctx, body, scope }, user) => {
      await scope.twoFactor.verifySetup(user, body);
      await auditOwn(ctx, user, 'auth.2fa.enabled', 'medium', `Two-factor authentication enabled for ${who(user)}`);
      return { success: true, message: 'Two-factor authentication is enabled' };
    },
  }),
  twoFactorRoute({
    method: 'POST',
    path: '/api/auth/2fa/disable',
    failure: 'Failed to disable 2FA',
    summary: 'Turns 2FA off; the secret and backup codes are removed',
    description:
      'Sudo mode: a session that signed in with its password (and second factor) less than CMS_REAUTH_WINDOW_SECONDS ago, or X-Reauth-Proof; otherwise 403 {message} with the header X-Reauth-Required: 1.',
    request: {},
    response: z.object({ success: z.literal(true), message: z.string() }),
    handler: async (route, user) => {
      await requireSudo(route);
      await route.scope.twoFactor.disable(user);
      await auditOwn(route.ctx, user, 'auth.2fa.disabled', 'high', `Two-factor authentication disabled for ${who(user)}`);
      return { success: true, message: 'Two-factor authentication is disabled' };
    },
  }),
  twoFactorRoute({
    method: 'GET',
    path: '/api/auth/2fa/backup-codes',
    failure: 'Failed to get 2FA status',
    summary: '2FA status: enabled, whether backup codes remain and how many, last verification',
    request: {},
    response: z.object({
      success: z.literal(true),
      data: z.object({
        enabled: z.boolean(),
        hasBackupCodes: z.boolean(),
        backupCodesCount: z.number(),
        lastVerification: z.string().nullable(),
      }),
    }),
    handler: async ({ scope }, user) => ({ success: true, data: scope.twoFactor.status(user) }),
  }),
  twoFactorRoute({
    method: 'POST',
    path: '/api/auth/2fa/backup-codes',
    failure: 'Failed to regenerate backup codes',
    summary: 'Issues 10 new backup codes; the old ones stop working at once',
    description:
      'Sudo mode: a session that signed in with its password (and second factor) less than CMS_REAUTH_WINDOW_SECONDS ago, or X-Reauth-Proof; otherwise 403 {message} with the header X-Reauth-Required: 1.',
    request: {},
    response: z.object({ success: z.literal(true), data: z.object({ backupCodes: z.array(z.string()) }), message: z.string() }),
    handler: async (route, user) => {
      await requireSudo(route);
      const backupCodes = await route.scope.twoFactor.regenerate(user);
      await auditOwn(
        route.ctx,
        user,
        'auth.2fa.backup-codes-regenerated',
        'medium',
        `New backup codes issued for ${who(user)}; the old ones no longer work`,
        {
          count: backupCodes.length,
        },
      );
      return { success: true, data: { backupCodes }, message: 'New backup codes issued; the old ones no longer work' };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/auth/2fa/verify',
    openDuring: ['maintenance', 'restore'],
    permission: 'public',
    summary: 'Second step of sign-in: a TOTP code or a backup code; sets the session cookie on success',
    description:
      'Always 200 for a wrong code ({success:false}); needs the pending sign-in cookie set by POST /api/user/login on this client. Failed codes count toward the lockout like wrong passwords (a known device on its own, unknown clients together); a client under a lock gets {success:false}.',
    tags: ['two-factor'],
    envelope: false,
    errorShape: 'message',
    rateLimit: { points: 10, durationSeconds: 60, clientPoints: 5 },
    request: { body: z.object({ userId: z.string().min(1).max(64), code: z.string().min(1).max(32) }) },
    response: z.object({
      success: z.boolean(),
      message: z.string(),
      method: z.enum(['totp', 'backup']),
      backupCodeUsed: z.boolean(),
      /** On failure only: why, in stable words (the message is for people). */
      reason: z.enum(['no-pending-sign-in', 'locked', 'invalid-code', 'code-already-used']).optional(),
    }),
    async handler(route) {
      try {
        await verifySecondFactor(route);
      } catch (err) {
        if (err instanceof AppError) throw err;
        route.logger.error({ err }, 'Failed to verify 2FA code');
        throw new TwoFactorFailureError('Failed to verify 2FA code', err);
      }
    },
  }),
];

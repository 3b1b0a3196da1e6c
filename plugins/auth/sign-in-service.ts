import type { Context } from 'koa';
import { AccountBlockedError } from './errors.js';
import type { EmailTokensService } from './email-tokens-service.js';
import { issueDeviceCookie } from './lockout.js';
import { clientIp, completeSignIn, setSessionCookie } from './routes.js';
import type { AuthSecrets } from './secrets.js';
import type { SessionsService } from './sessions-service.js';
import { toPublicUser, type UsersService } from './users-service.js';

type SignInDeps = { users: UsersService; sessions: SessionsService; authSecrets: AuthSecrets; emailTokens: EmailTokensService };

/**
 * For other plugins (container key `signIn`): setup's first admin, and sign-in plugins that prove the
 * first factor their own way (identity providers, passkeys). They meet the auth plugin only through it.
 */
export function signInService(cradle: SignInDeps) {
  const client = (ctx: Context) => ({ userAgent: ctx.get('user-agent'), ip: clientIp(ctx) });
  const userOf = async (userId: string) => {
    const user = await cradle.users.findById(userId);
    if (!user) throw new Error(`No user ${userId}`);
    return user;
  };
  return {
    /** Starts a session for a user and sets the cookie (no second factor asked). */
    async startSession(ctx: Context, userId: string, options: { passwordProven?: boolean } = {}) {
      const user = await userOf(userId);
      const { token, session } = await cradle.sessions.create(user, client(ctx), { passwordProven: options.passwordProven === true });
      setSessionCookie(ctx, token, Number(session.expires_at));
    },
    /**
     * Completes a sign-in whose first factor another plugin has proven: refuses a blocked user, then the
     * 2FA step when the user has it on (the pending cookie, as after a password) unless the proof already
     * was multi-factor (secondFactorDone: a user-verified passkey), otherwise a session cookie.
     */
    async complete(ctx: Context, userId: string, options: { secondFactorDone?: boolean } = {}) {
      const user = await userOf(userId);
      if (user.blocked) throw new AccountBlockedError();
      if (options.secondFactorDone && user.two_factor_enabled) {
        const { token, session } = await cradle.sessions.create(user, client(ctx));
        setSessionCookie(ctx, token, Number(session.expires_at));
        await issueDeviceCookie(ctx, cradle.authSecrets, user.id);
        return { user: toPublicUser(user) };
      }
      return completeSignIn(ctx, cradle, user);
    },
  };
}

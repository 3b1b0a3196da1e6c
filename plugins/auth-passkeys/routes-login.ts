import { z } from 'zod';
import { defineRoute, type RouteDefinition, recordRequestAudit } from '../../kernel/sdk.js';
import { clearChallengeCookie, readChallengeCookie, setChallengeCookie } from './challenge-cookie.js';
import { decoyCredentials } from './decoy-credentials.js';
import { signInFailed } from './errors.js';
import { transportsOf } from './passkeys-service.js';
import { expectedBy } from './relying-party.js';
import { authenticationResponseSchema, requestOptionsSchema } from './schemas.js';
import { webauthn } from './webauthn.js';

const publicUser = z.object({ _id: z.string(), email: z.string(), username: z.string(), role: z.string() });

export const loginRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    path: '/api/auth/passkeys/login/options',
    openDuring: ['maintenance'],
    permission: 'public',
    tags: ['auth'],
    rateLimit: { points: 30, durationSeconds: 60 },
    summary: 'Starts a passkey sign-in: options for navigator.credentials.get() and the challenge cookie (experimental)',
    description:
      "With email, allowCredentials lists that user's passkeys; an unknown email gets options of the same shape, so the answer does not tell which emails exist. Without email, allowCredentials is empty (the browser offers its discoverable passkeys). Sets an httpOnly cookie binding the challenge to this browser.",
    request: { body: z.object({ email: z.string().trim().max(320).optional() }).optional() },
    response: requestOptionsSchema,
    async handler({ ctx, body, scope }) {
      const rp = scope.passkeyRelyingParty(ctx);
      const secrets = scope.authSecrets;
      const tenantId = await scope.tenants.fromHostname(ctx.hostname);
      const email = body?.email || '';
      let userId: string | null = null;
      let allowCredentials: Array<{ id: string; transports?: string[] }> = [];
      if (email) {
        const user = await scope.users.findByEmail(email, tenantId);
        const keys = user ? await scope.passkeys.listForUser(user.id) : [];
        if (user && keys.length) {
          userId = user.id;
          allowCredentials = keys.map((p) => ({ id: p.credential_id, transports: transportsOf(p) }));
        } else {
          allowCredentials = await decoyCredentials(secrets, tenantId, email);
        }
      }
      const options = await (
        await webauthn()
      ).generateAuthenticationOptions({
        rpID: rp.id,
        allowCredentials,
        timeout: rp.timeoutMs,
        userVerification: rp.userVerification,
      });
      const challenge = await scope.passkeyChallenges.issue('login', { challenge: options.challenge, tenantId, userId });
      await setChallengeCookie(ctx, secrets, challenge.id, Number(challenge.expires_at));
      return options;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/auth/passkeys/login/verify',
    openDuring: ['maintenance'],
    permission: 'public',
    tags: ['auth'],
    rateLimit: { points: 30, durationSeconds: 60 },
    summary: 'Finishes a passkey sign-in: verifies the assertion and signs in (experimental)',
    description:
      'Needs the challenge cookie from login/options on this browser; the challenge works once. A user-verified assertion counts as both factors; without user verification a user with 2FA on gets {requires2FA, userId} as after a password. Any failure (unknown passkey, bad signature, wrong origin or RP ID, missing, expired or reused challenge, deleted user) answers the same 401 PASSKEY_VERIFICATION_FAILED.',
    request: { body: z.object({ response: authenticationResponseSchema }) },
    response: z.union([z.object({ user: publicUser }), z.object({ requires2FA: z.literal(true), userId: z.string() })]),
    async handler({ ctx, body, scope, logger }) {
      let userId: string | null = null;
      const refuse = (reason: string) => {
        logger.info({ reason }, 'passkey sign-in refused');
        void recordRequestAudit(ctx, {
          domain: 'auth',
          operation: 'sign-in.failed',
          action: 'auth.sign-in.failed',
          level: 'medium',
          outcome: 'failure',
          message: `Passkey sign-in refused: ${reason}`,
          actor: { userId },
          ...(userId ? { target: { type: 'user', id: userId } } : {}),
          details: { method: 'passkey', reason: 'passkey-refused' },
        });
        return signInFailed();
      };
      const secrets = scope.authSecrets;
      const challengeId = await readChallengeCookie(ctx, secrets);
      clearChallengeCookie(ctx);
      if (!challengeId) throw refuse('no valid challenge cookie');
      const claimed = await scope.passkeyChallenges.claimById(challengeId, 'login');
      if (!claimed) throw refuse('challenge unknown, expired or already used');
      const tenantId = await scope.tenants.fromHostname(ctx.hostname);
      if (claimed.tenant_id !== tenantId) throw refuse('challenge of another tenant');
      const passkeys = scope.passkeys;
      const key = await passkeys.findByCredentialId(body.response.id, tenantId);
      if (!key) throw refuse('unknown credential');
      userId = key.user_id;
      if (claimed.user_id && claimed.user_id !== key.user_id) throw refuse('credential of another user than the email named');
      const handle = body.response.response.userHandle;
      if (handle && handle !== Buffer.from(key.user_id, 'utf8').toString('base64url'))
        throw refuse('user handle does not match the credential');
      const user = await scope.users.findById(key.user_id);
      if (!user || user.tenant_id !== key.tenant_id) {
        await passkeys.removeOrphan(key.id);
        throw refuse('the passkey user no longer exists');
      }
      const rp = scope.passkeyRelyingParty(ctx);
      const credential = {
        id: key.credential_id,
        publicKey: new Uint8Array(Buffer.from(key.public_key, 'base64url')),
        counter: Number(key.counter),
        transports: transportsOf(key),
      };
      const lib = await webauthn();
      const result = await lib
        .verifyAuthenticationResponse({ response: body.response, ...expectedBy(rp, claimed.challenge), credential })
        .catch((err: Error) => {
          throw refuse(err.message);
        });
      if (!result.verified) throw refuse('signature does not verify');
      await passkeys.recordUse(key, result.authenticationInfo.newCounter, result.authenticationInfo.credentialBackedUp);
      const signedIn = await scope.signIn.complete(ctx, user.id, { secondFactorDone: result.authenticationInfo.userVerified });
      const pending = 'requires2FA' in signedIn;
      await recordRequestAudit(ctx, {
        domain: 'auth',
        operation: pending ? 'sign-in.second-factor-required' : 'sign-in.succeeded',
        action: pending ? 'auth.sign-in.second-factor-required' : 'auth.sign-in.succeeded',
        level: 'low',
        outcome: 'success',
        message: pending ? `Sign-in of ${user.email} by passkey: second factor required` : `${user.email} signed in (passkey)`,
        actor: { userId: user.id, tenantId: user.tenant_id },
        target: { type: 'user', id: user.id },
        details: { method: 'passkey', userVerified: result.authenticationInfo.userVerified },
      });
      return signedIn;
    },
  }),
];

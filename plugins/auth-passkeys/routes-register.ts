import { UniqueConstraintError } from 'sequelize';
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { PasskeyRegistrationFailedError } from './errors.js';
import { toPublicPasskey, transportsOf } from './passkeys-service.js';
import { expectedBy } from './relying-party.js';
import { challengeOf, creationOptionsSchema, MAX_CREDENTIAL_ID, passkeySchema, registrationResponseSchema } from './schemas.js';
import { sessionUser } from './session-user.js';
import { webauthn } from './webauthn.js';

const TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);
const refuse = (reason: string) => new PasskeyRegistrationFailedError(reason);

export const registerRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    path: '/api/auth/passkeys/register/options',
    permission: 'authenticated',
    tags: ['auth'],
    summary: 'Starts adding a passkey: options for navigator.credentials.create() (experimental)',
    description:
      "Needs a signed-in session in sudo mode: signed in with its password less than CMS_REAUTH_WINDOW_SECONDS ago, or X-Reauth-Proof (403 REAUTH_REQUIRED). excludeCredentials lists the caller's passkeys; resident key preferred; attestation none. The challenge is valid for the configured timeout and once.",
    request: {},
    response: creationOptionsSchema,
    async handler(route) {
      const user = await sessionUser(route);
      // Sudo mode (the auth plugin's one guard): a passkey signs in without the password, so adding one
      // needs a recent proof of it. The challenge is issued only here, and verify needs that challenge.
      await route.scope.sessions.requireRecentPassword(route.identity, route.ctx.get('x-reauth-proof') || undefined);
      const rp = route.scope.passkeyRelyingParty(route.ctx);
      const existing = await route.scope.passkeys.listForUser(user.id);
      const options = await (
        await webauthn()
      ).generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName: user.email,
        userDisplayName: user.username,
        userID: new TextEncoder().encode(user.id),
        timeout: rp.timeoutMs,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: transportsOf(p) })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: rp.userVerification },
      });
      await route.scope.passkeyChallenges.issue('register', { challenge: options.challenge, tenantId: user.tenant_id, userId: user.id });
      return options;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/auth/passkeys/register/verify',
    permission: 'authenticated',
    tags: ['auth'],
    status: 201,
    summary: 'Finishes adding a passkey: verifies the authenticator response and stores the passkey (experimental)',
    description:
      'Needs the session that asked for the options. A response that does not verify (wrong challenge, origin or RP ID, used or expired challenge, unsupported key, passkey already registered) answers 400 PASSKEY_REGISTRATION_FAILED with the reason.',
    request: { body: z.object({ response: registrationResponseSchema, name: z.string().trim().min(1).max(191).optional() }) },
    response: z.object({ passkey: passkeySchema }),
    async handler(route) {
      const { body, scope, logger } = route;
      const user = await sessionUser(route);
      const rp = scope.passkeyRelyingParty(route.ctx);
      const challenge = challengeOf(body.response.response.clientDataJSON);
      const claimed = challenge ? await scope.passkeyChallenges.claimForUser(user.id, challenge) : null;
      if (!claimed) throw refuse('The registration challenge is unknown, expired or already used; ask for new options');
      const lib = await webauthn();
      const verification = await lib
        .verifyRegistrationResponse({ response: body.response, ...expectedBy(rp, claimed.challenge) })
        .catch((err: Error) => {
          logger.info({ reason: err.message }, 'passkey registration refused');
          throw refuse(`The passkey could not be verified: ${String(err.message).slice(0, 300)}`);
        });
      if (!verification.verified) throw refuse('The passkey could not be verified');
      const info = verification.registrationInfo;
      if (info.credential.id.length > MAX_CREDENTIAL_ID)
        throw refuse(`Credential ids longer than ${MAX_CREDENTIAL_ID} base64url characters are not supported`);
      const transports = (body.response.response.transports ?? []).filter((t: string) => TRANSPORTS.has(t));
      const passkeys = scope.passkeys;
      try {
        const row = await passkeys.add({
          tenantId: user.tenant_id,
          userId: user.id,
          credentialId: info.credential.id,
          publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
          counter: info.credential.counter,
          transports,
          deviceType: info.credentialDeviceType,
          backedUp: info.credentialBackedUp,
          name: body.name ?? `Passkey added ${new Date().toISOString().slice(0, 10)}`,
        });
        return { passkey: toPublicPasskey(row) };
      } catch (err) {
        if (err instanceof UniqueConstraintError) throw refuse('This passkey is already registered');
        throw err;
      }
    },
  }),
];

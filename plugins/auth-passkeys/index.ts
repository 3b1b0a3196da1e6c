import { asFunction, asValue } from 'awilix';
import { definePlugin, type ModelMap } from '../../kernel/sdk.js';
import { ChallengesService } from './challenges-service.js';
import { PASSKEY_MIGRATIONS } from './migrations.js';
import { PasskeyChallenge } from './models/passkey-challenge.js';
import { Passkey } from './models/passkey.js';
import { optionsSchema } from './options.js';
import { PasskeysService } from './passkeys-service.js';
import { relyingPartyResolver } from './relying-party.js';
import { loginRoutes } from './routes-login.js';
import { manageRoutes } from './routes-manage.js';
import { registerRoutes } from './routes-register.js';

/**
 * Passkeys (WebAuthn), experimental: registration and management for signed-in users, sign-in for
 * everyone. The auth plugin finishes the sign-in (container key `signIn`), so blocked accounts, 2FA
 * and sessions behave exactly as after a password.
 */
export default definePlugin({
  options: optionsSchema,
  register({ container, routes, migrations, models, config, options: o }) {
    for (const model of [Passkey, PasskeyChallenge]) models.add(model);
    for (const m of PASSKEY_MIGRATIONS) migrations.add(m);
    container.register('passkeys', asFunction(({ models }: { models: ModelMap }) => new PasskeysService(models)).singleton());
    container.register(
      'passkeyChallenges',
      asFunction(({ models }: { models: ModelMap }) => new ChallengesService(models, { ttlMs: o.timeoutMs })).singleton(),
    );
    container.register('passkeyRelyingParty', asValue(relyingPartyResolver(o, config)));
    for (const route of [...registerRoutes, ...manageRoutes, ...loginRoutes]) routes.add(route);
  },
  boot({ container, every }) {
    const challenges = container.resolve<ChallengesService>('passkeyChallenges');
    every({ name: 'expired passkey challenge cleanup', everyMs: 5 * 60 * 1000, run: async () => void (await challenges.purgeExpired()) });
  },
});

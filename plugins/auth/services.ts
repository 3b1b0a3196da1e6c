import type { ModelMap, CacheService, CmsConfig, EventBus, Logger, PluginRegisterContext, WorkerPool } from '../../kernel/sdk.js';
import { asFunction } from 'awilix';
import type { Sequelize } from 'sequelize';
import { EmailFlows, type MailerLike } from './email-flows.js';
import { EmailTokensService } from './email-tokens-service.js';
import { AuthSecrets } from './secrets.js';
import { sessionSettings, siteName } from './session-settings.js';
import { SessionsService, type DevicePolicy } from './sessions-service.js';
import { signInService } from './sign-in-service.js';
import { TenantsService } from './tenants-service.js';
import { TokensService } from './tokens-service.js';
import { TwoFactorService } from './two-factor-service.js';
import { UsersService } from './users-service.js';

/** The options the services are built with (plugins.options.auth, parsed by index.ts). */
export interface AuthServiceOptions {
  bcryptRounds: number;
  issuer?: string;
  publicUrl?: string;
  sessionTtlHours: number;
  sessionIdleHours: number;
  sessionMaxPerUser: number;
  sessionDevicePolicy: DevicePolicy;
  reauthWindowSeconds: number;
}

type Container = PluginRegisterContext['container'];
const singleton = <T>(factory: (cradle: any) => T) => asFunction(factory).singleton();

/** Users, sessions and secrets: who signs in and how long they stay. */
function registerAccountServices(container: Container, o: AuthServiceOptions, config: CmsConfig): void {
  container.register(
    'authSecrets',
    singleton(({ sequelize }: { sequelize: Sequelize }) => new AuthSecrets(sequelize, config.secrets)),
  );
  container.register(
    'users',
    singleton(
      ({ pool, events, authSecrets, models }: { pool: WorkerPool; events: EventBus; authSecrets: AuthSecrets; models: ModelMap }) =>
        new UsersService(models, pool, { bcryptRounds: o.bcryptRounds }, events, (text) => authSecrets.sign(text)),
    ),
  );
  const defaults = {
    ttlHours: o.sessionTtlHours,
    idleHours: o.sessionIdleHours,
    maxPerUser: o.sessionMaxPerUser,
    devicePolicy: o.sessionDevicePolicy,
  };
  container.register(
    'sessions',
    singleton((cradle: { users: UsersService; authSecrets: AuthSecrets; cache: CacheService; logger: Logger; models: ModelMap }) =>
      Object.assign(
        new SessionsService(cradle.models, cradle.users, cradle.authSecrets, cradle.cache, cradle.logger, defaults, () =>
          sessionSettings(cradle),
        ),
        { reauthWindowSeconds: o.reauthWindowSeconds },
      ),
    ),
  );
  container.register('signIn', singleton(signInService));
}

/** Every service of the auth plugin, as container singletons. */
export function registerAuthServices(container: Container, o: AuthServiceOptions, config: CmsConfig): void {
  container.register(
    'tenants',
    singleton(({ models }: { models: ModelMap }) => new TenantsService(models, config.multiTenant)),
  );
  registerAccountServices(container, o, config);
  container.register(
    'tokens',
    singleton(
      ({ cache, logger, models }: { cache: CacheService; logger: Logger; models: ModelMap }) =>
        new TokensService(models, { cache, logger }),
    ),
  );
  container.register(
    'twoFactor',
    singleton(
      (cradle: { pool: WorkerPool; authSecrets: AuthSecrets; models: ModelMap }) =>
        new TwoFactorService(
          cradle.models,
          cradle.pool,
          cradle.authSecrets,
          async (tenantId) => o.issuer ?? (await siteName(cradle, tenantId)) ?? 'CMS',
        ),
    ),
  );
  container.register(
    'emailTokens',
    singleton(({ models }: { models: ModelMap }) => new EmailTokensService(models)),
  );
  const publicUrl = (config.publicUrl ?? o.publicUrl ?? `http://${config.host}:${config.port}`).replace(/\/+$/, '');
  container.register(
    'emailFlows',
    singleton(
      (c: { users: UsersService; emailTokens: EmailTokensService; mailer: MailerLike; logger: Logger }) =>
        new EmailFlows(c.users, c.emailTokens, c.mailer, c.logger, publicUrl),
    ),
  );
}

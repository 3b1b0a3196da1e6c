import { asFunction } from 'awilix';
import type { Sequelize } from 'sequelize';
import type { CacheService } from '../../kernel/cache/cache-service.js';
import type { CmsConfig } from '../../kernel/config.js';
import type { EventBus } from '../../kernel/events.js';
import type { Logger } from '../../kernel/logger.js';
import type { PluginRegisterContext } from '../../kernel/plugin.js';
import type { WorkerPool } from '../../kernel/pool.js';
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
      ({ pool, events, authSecrets }: { pool: WorkerPool; events: EventBus; authSecrets: AuthSecrets }) =>
        new UsersService(pool, { bcryptRounds: o.bcryptRounds }, events, (text) => authSecrets.sign(text)),
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
    singleton((cradle: { users: UsersService; authSecrets: AuthSecrets; cache: CacheService; logger: Logger }) =>
      Object.assign(
        new SessionsService(cradle.users, cradle.authSecrets, cradle.cache, cradle.logger, defaults, () => sessionSettings(cradle)),
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
    singleton(() => new TenantsService(config.multiTenant)),
  );
  registerAccountServices(container, o, config);
  container.register(
    'tokens',
    singleton(({ cache, logger }: { cache: CacheService; logger: Logger }) => new TokensService({ cache, logger })),
  );
  container.register(
    'twoFactor',
    singleton(
      (cradle: { pool: WorkerPool; authSecrets: AuthSecrets }) =>
        new TwoFactorService(cradle.pool, cradle.authSecrets, async (tenantId) => o.issuer ?? (await siteName(cradle, tenantId)) ?? 'CMS'),
    ),
  );
  container.register(
    'emailTokens',
    singleton(() => new EmailTokensService()),
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

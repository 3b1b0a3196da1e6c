import { usersCommand } from './users-command.js';
import { asValue } from 'awilix';
import { z } from 'zod';
import { definePlugin, everyMsOption, modelsOf, type EventBus, type ModelMap, type PluginBootContext } from '../../kernel/sdk.js';
import { bearerResolver, followedRoleRules, guestGrants, guestResolver, roleRules, sessionCookieResolver } from './identity-resolvers.js';
import { ApiKey } from './models/api-key.js';
import { WebsiteToken } from './models/website-token.js';
import { accountRoutes } from './routes-account.js';
import { tokenRoutes } from './routes-tokens.js';
import { permissionRoutes } from './routes-permissions.js';
import { twoFactorRoutes } from './routes-2fa.js';
import { emailRoutes, invitationRoutes } from './routes-email.js';
import { userAdminRoutes } from './routes-users.js';
import { roleRoutes } from './routes-roles.js';
import { tenantRoutes } from './routes-tenants.js';
import { providerRoutes } from './routes-providers.js';
import type { TenantsService } from './tenants-service.js';
import { Tenant } from './models/tenant.js';
import type { EmailTokensService } from './email-tokens-service.js';
import { EmailToken } from './models/email-token.js';
import type { TokensService } from './tokens-service.js';
import { AUTH_MIGRATIONS } from './migrations.js';
import { Role } from './models/role.js';
import { Session } from './models/session.js';
import { User } from './models/user.js';
import { authRoutes } from './routes.js';
import type { SessionsService } from './sessions-service.js';
import { registerAuthServices } from './services.js';
import type { UsersService } from './users-service.js';
import { rulesOfRole } from './user-roles.js';

/** plugins.options.auth (later issues move the session settings into the seeded System Settings). */
const optionsSchema = z.object({
  bcryptRounds: z.number().int().min(4).max(15).default(12),
  /** The issuer shown in authenticator apps; unset: the tenant's site name (SITE_NAME), else "CMS". */
  issuer: z.string().min(1).max(64).optional(),
  /** The address links in mails point to (CMS_PUBLIC_URL overrides); never taken from the request. */
  publicUrl: z.string().url().optional(),
  sessionTtlHours: z
    .number()
    .min(0.01)
    .max(24 * 365)
    .default(24),
  sessionIdleHours: z.number().min(0).default(0),
  sessionMaxPerUser: z.number().int().min(0).default(0),
  sessionDevicePolicy: z.enum(['single-per-device', 'single-per-user', 'allow-multiple']).default('single-per-device'),
  /**
   * Sudo mode: how long after signing in with the password a session may mint credentials without a
   * fresh X-Reauth-Proof (CMS_REAUTH_WINDOW_SECONDS overrides; 0: the proof every time).
   */
  reauthWindowSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600)
    .default(900),
  /** How often expired sessions, API keys, website tokens and email links are purged (the spec's 5 minutes). */
  purgeIntervalMs: everyMsOption(5 * 60 * 1000),
});

type AuthServices = { sessions: SessionsService; tokens: TokensService; emailTokens: EmailTokensService; users: UsersService };

/**
 * The spec's background task: expired sessions, expired tokens and email links, and stale per-client
 * lockout counts are purged every 5 minutes (plugins.options.auth.purgeIntervalMs); the first two are also
 * maintenance jobs an administrator can run on demand (POST /api/system-jobs).
 */
function schedulePurges(every: PluginBootContext['every'], c: AuthServices, everyMs: number): void {
  every({
    name: 'purge-expired-tokens',
    everyMs,
    job: {
      description:
        'Deletes expired API keys, website tokens and email links (reset, magic link, invitation); runs every 5 minutes on its own.',
    },
    run: async () => ({ apiKeysAndWebsiteTokens: await c.tokens.purgeExpired(), emailTokens: await c.emailTokens.purgeExpired() }),
  });
  every({
    name: 'purge-expired-sessions',
    everyMs,
    job: { description: 'Revokes and deletes expired sessions on every instance; runs every 5 minutes on its own.' },
    run: async () => ({ sessions: await c.sessions.purgeExpired() }),
  });
  every({ name: 'per-client lockout cleanup', everyMs, run: async () => void (await c.users.purgeClientFailures()) });
}

const ROUTES = [
  ...authRoutes,
  ...accountRoutes,
  ...tokenRoutes,
  ...permissionRoutes,
  ...twoFactorRoutes,
  ...emailRoutes,
  ...invitationRoutes,
  ...userAdminRoutes,
  ...roleRoutes,
  ...tenantRoutes,
  ...providerRoutes,
];

export default definePlugin({
  // CMS_REAUTH_WINDOW_SECONDS (plugin.json `env`) over plugins.options.auth; the kernel merges and validates.
  options: optionsSchema,
  register({ container, routes, registries, migrations, models, config, options: o }) {
    for (const model of [User, Role, Session, ApiKey, WebsiteToken, EmailToken, Tenant]) models.add(model);
    for (const m of AUTH_MIGRATIONS) migrations.add(m);
    registerAuthServices(container, o, config);
    for (const route of ROUTES) routes.add(route);
    // Every identity these resolvers answer carries its role's rules (kernel/access-rules.ts).
    const rules = roleRules();
    container.register('roleRules', asValue(rules));
    registries.identityResolvers.add(rules.wrap(bearerResolver()));
    registries.identityResolvers.add(rules.wrap(sessionCookieResolver()));
    const guest = guestResolver();
    container.register('guestResolver', asValue(guest));
    registries.identityResolvers.add(rules.wrap(guest));
    registries.cliCommands.add(usersCommand);
  },
  boot({ container, onClose, options, every, follow, followEach }) {
    const { purgeIntervalMs } = options;
    const c = container.cradle as AuthServices & { events: EventBus; tenants: TenantsService };
    schedulePurges(every, c, purgeIntervalMs);
    // Session revocations and the session settings, to and from every instance.
    onClose(c.sessions.connectEvents(c.events, follow));
    // A tenant created on any instance: its hostname resolves here on the next request.
    c.tenants.follow(c.events, follow);
    // API keys and website tokens: invalidations to and from every instance; user and role changes reach them.
    onClose(c.tokens.connectEvents(c.events));
    c.users.onIdentityChange(c.tokens);
    // A role's permissions changed: the sessions of its holders read it again, on every instance.
    c.users.onIdentityChange({
      userChanged: async () => undefined,
      roleChanged: (tenantId, role) => c.sessions.forgetRole(tenantId, role),
    });
    // Public access granted or withdrawn on any instance applies to the next guest request here.
    container.resolve<ReturnType<typeof guestResolver>>('guestResolver').follow(guestGrants(followEach, c.users), c.tenants);
    // A role's rules changed on any instance: the next request of its holders here carries the new ones.
    const roles = modelsOf(container.resolve<ModelMap>('models'), { Role }).Role;
    container
      .resolve<ReturnType<typeof roleRules>>('roleRules')
      .follow(followedRoleRules(followEach, { rulesOf: (tenantId, role) => rulesOfRole(roles, tenantId, role) }));
  },
});

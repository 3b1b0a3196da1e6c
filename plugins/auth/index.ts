import { asFunction, asValue } from 'awilix';
import { z } from 'zod';
import {
  type CacheService,
  BootError,
  definePlugin,
  EVENTS_RESYNC,
  type EventBus,
  type Logger,
  type SystemJob,
  type WorkerPool,
  type ModelMap,
} from '../../kernel/sdk.js';
import { bearerResolver, guestResolver, sessionCookieResolver } from './identity-resolvers.js';
import { GUEST_GRANTS_CHANGED } from './public.js';
import { ApiKey } from './models/api-key.js';
import { WebsiteToken } from './models/website-token.js';
import { accountRoutes } from './routes-account.js';
import { tokenRoutes } from './routes-tokens.js';
import { permissionRoutes } from './routes-permissions.js';
import { twoFactorRoutes } from './routes-2fa.js';
import { emailRoutes, invitationRoutes } from './routes-email.js';
import { userAdminRoutes } from './routes-users.js';
import { tenantRoutes } from './routes-tenants.js';
import { providerRoutes } from './routes-providers.js';
import { TenantsService } from './tenants-service.js';
import { Tenant } from './models/tenant.js';
import { EmailFlows, type MailerLike } from './email-flows.js';
import { EmailTokensService } from './email-tokens-service.js';
import { EmailToken } from './models/email-token.js';
import { TwoFactorService } from './two-factor-service.js';
import { TokensService } from './tokens-service.js';
import { AUTH_MIGRATIONS } from './migrations.js';
import { Role } from './models/role.js';
import { Session } from './models/session.js';
import { User } from './models/user.js';
import { authRoutes, clientIp, completeSignIn, setSessionCookie } from './routes.js';
import { AccountBlockedError } from './errors.js';
import { issueDeviceCookie } from './lockout.js';
import type { Context } from 'koa';
import { AuthSecrets } from './secrets.js';
import { SessionsService, type SessionOptions } from './sessions-service.js';
import type { Sequelize } from 'sequelize';
import { toPublicUser, UsersService } from './users-service.js';

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
  purgeIntervalMs: z
    .number()
    .int()
    .min(10)
    .max(2 ** 31 - 1)
    .default(5 * 60 * 1000),
});

type PurgeServices = { sessions: SessionsService; tokens: TokensService; emailTokens: EmailTokensService };

/** Expired API keys, website tokens and email links (reset, magic link, invitation) go. */
async function purgeExpiredTokens(c: PurgeServices): Promise<{ apiKeysAndWebsiteTokens: number; emailTokens: number }> {
  return { apiKeysAndWebsiteTokens: await c.tokens.purgeExpired(), emailTokens: await c.emailTokens.purgeExpired() };
}

/** Maintenance jobs (POST /api/system-jobs): the scheduled purges, on demand. */
const purgeJobs: SystemJob[] = [
  {
    name: 'purge-expired-tokens',
    description:
      'Deletes expired API keys, website tokens and email links (reset, magic link, invitation); runs every 5 minutes on its own.',
    handler: async ({ container }) => purgeExpiredTokens(container.cradle as PurgeServices),
  },
  {
    name: 'purge-expired-sessions',
    description: 'Revokes and deletes expired sessions on every instance; runs every 5 minutes on its own.',
    handler: async ({ container }) => ({ sessions: await (container.cradle as PurgeServices).sessions.purgeExpired() }),
  },
];

const sessionSettingsSchema = z.object({
  SESSION_DEVICE_POLICY: z.enum(['single-per-device', 'single-per-user', 'allow-multiple']).optional(),
  SESSION_TTL_HOURS: z.number().min(0.01).optional(),
  SESSION_IDLE_HOURS: z.number().min(0).optional(),
  SESSION_MAX_PER_USER: z.number().int().min(0).optional(),
});

/**
 * The spec's session settings live in System Settings once setup has seeded them. The settings store
 * belongs to the setup plugin, reached through the container when it is there (auth does not require it).
 */
async function sessionSettings(cradle: object): Promise<Partial<SessionOptions>> {
  let settings: { get(key: string): Promise<unknown> } | undefined;
  try {
    settings = (cradle as { settings: typeof settings }).settings;
  } catch {
    return {};
  }
  if (!settings) return {};
  const raw = Object.fromEntries(
    await Promise.all(
      ['SESSION_DEVICE_POLICY', 'SESSION_TTL_HOURS', 'SESSION_IDLE_HOURS', 'SESSION_MAX_PER_USER'].map(
        async (k) => [k, await settings!.get(k)] as const,
      ),
    ),
  );
  const parsed = sessionSettingsSchema.safeParse(Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined && v !== null)));
  if (!parsed.success) return {};
  const s = parsed.data;
  return {
    ...(s.SESSION_DEVICE_POLICY ? { devicePolicy: s.SESSION_DEVICE_POLICY } : {}),
    ...(s.SESSION_TTL_HOURS !== undefined ? { ttlHours: s.SESSION_TTL_HOURS } : {}),
    ...(s.SESSION_IDLE_HOURS !== undefined ? { idleHours: s.SESSION_IDLE_HOURS } : {}),
    ...(s.SESSION_MAX_PER_USER !== undefined ? { maxPerUser: s.SESSION_MAX_PER_USER } : {}),
  };
}

/** The tenant's site name (SITE_NAME, from the setup plugin's settings when it is there). */
async function siteName(cradle: object, tenantId: string): Promise<string | null> {
  try {
    const settings = (cradle as { settings?: { get(key: string, tenantId?: string): Promise<unknown> } }).settings;
    const name = await settings?.get('SITE_NAME', tenantId);
    return typeof name === 'string' && name.trim() ? name.trim().slice(0, 64) : null;
  } catch {
    return null;
  }
}

export default definePlugin({
  register({ container, routes, registries, migrations, models, config, options: raw, envOptions }) {
    // CMS_REAUTH_WINDOW_SECONDS (plugin.json `env`) over plugins.options.auth.
    const parsed = optionsSchema.safeParse({ ...(raw as object), ...(envOptions as object) });
    if (!parsed.success)
      throw new BootError(
        `Invalid plugins.options.auth: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    const o = parsed.data;
    for (const model of [User, Role, Session, ApiKey, WebsiteToken, EmailToken, Tenant]) models.add(model);
    container.register(
      'tenants',
      asFunction(({ models }: { models: ModelMap }) => new TenantsService(models, config.multiTenant)).singleton(),
    );
    for (const m of AUTH_MIGRATIONS) migrations.add(m);
    container.register(
      'authSecrets',
      asFunction(({ sequelize }: { sequelize: Sequelize }) => new AuthSecrets(sequelize, config.secrets)).singleton(),
    );
    container.register(
      'users',
      asFunction(
        ({ pool, events, authSecrets, models }: { pool: WorkerPool; events: EventBus; authSecrets: AuthSecrets; models: ModelMap }) =>
          new UsersService(models, pool, { bcryptRounds: o.bcryptRounds }, events, (text) => authSecrets.sign(text)),
      ).singleton(),
    );
    container.register(
      'sessions',
      asFunction((cradle: { users: UsersService; authSecrets: AuthSecrets; cache: CacheService; logger: Logger; models: ModelMap }) =>
        Object.assign(
          new SessionsService(
            cradle.models,
            cradle.users,
            cradle.authSecrets,
            cradle.cache,
            cradle.logger,
            {
              ttlHours: o.sessionTtlHours,
              idleHours: o.sessionIdleHours,
              maxPerUser: o.sessionMaxPerUser,
              devicePolicy: o.sessionDevicePolicy,
            },
            () => sessionSettings(cradle),
          ),
          { reauthWindowSeconds: o.reauthWindowSeconds },
        ),
      ).singleton(),
    );
    // For other plugins: setup's first admin, and sign-in plugins that prove the first factor their own
    // way (identity providers, passkeys). They meet the auth plugin only through this container key.
    container.register(
      'signIn',
      asFunction(
        (cradle: { users: UsersService; sessions: SessionsService; authSecrets: AuthSecrets; emailTokens: EmailTokensService }) => ({
          /** Starts a session for a user and sets the cookie (no second factor asked). */
          async startSession(ctx: Context, userId: string, options: { passwordProven?: boolean } = {}) {
            const user = await cradle.users.findById(userId);
            if (!user) throw new Error(`No user ${userId}`);
            const { token, session } = await cradle.sessions.create(
              user,
              { userAgent: ctx.get('user-agent'), ip: clientIp(ctx) },
              { passwordProven: options.passwordProven === true },
            );
            setSessionCookie(ctx, token, Number(session.expires_at));
          },
          /**
           * Completes a sign-in whose first factor another plugin has proven: refuses a blocked user, then the
           * 2FA step when the user has it on (the pending cookie, as after a password) unless the proof already
           * was multi-factor (secondFactorDone: a user-verified passkey), otherwise a session cookie.
           */
          async complete(ctx: Context, userId: string, options: { secondFactorDone?: boolean } = {}) {
            const user = await cradle.users.findById(userId);
            if (!user) throw new Error(`No user ${userId}`);
            if (user.blocked) throw new AccountBlockedError();
            if (options.secondFactorDone && user.two_factor_enabled) {
              const { token, session } = await cradle.sessions.create(user, { userAgent: ctx.get('user-agent'), ip: clientIp(ctx) });
              setSessionCookie(ctx, token, Number(session.expires_at));
              await issueDeviceCookie(ctx, cradle.authSecrets, user.id);
              return { user: toPublicUser(user) };
            }
            return completeSignIn(ctx, cradle, user);
          },
        }),
      ).singleton(),
    );
    container.register(
      'tokens',
      asFunction(
        ({ cache, logger, models }: { cache: CacheService; logger: Logger; models: ModelMap }) =>
          new TokensService(models, { cache, logger }),
      ).singleton(),
    );
    container.register(
      'twoFactor',
      asFunction(
        (cradle: { pool: WorkerPool; authSecrets: AuthSecrets; models: ModelMap }) =>
          new TwoFactorService(
            cradle.models,
            cradle.pool,
            cradle.authSecrets,
            async (tenantId) => o.issuer ?? (await siteName(cradle, tenantId)) ?? 'CMS',
          ),
      ).singleton(),
    );
    container.register('emailTokens', asFunction(({ models }: { models: ModelMap }) => new EmailTokensService(models)).singleton());
    const publicUrl = (config.publicUrl ?? o.publicUrl ?? `http://${config.host}:${config.port}`).replace(/\/+$/, '');
    container.register(
      'emailFlows',
      asFunction(
        ({
          users,
          emailTokens,
          mailer,
          logger,
        }: {
          users: UsersService;
          emailTokens: EmailTokensService;
          mailer: MailerLike;
          logger: Logger;
        }) => new EmailFlows(users, emailTokens, mailer, logger, publicUrl),
      ).singleton(),
    );
    for (const route of [
      ...authRoutes,
      ...accountRoutes,
      ...tokenRoutes,
      ...permissionRoutes,
      ...twoFactorRoutes,
      ...emailRoutes,
      ...invitationRoutes,
      ...userAdminRoutes,
      ...tenantRoutes,
      ...providerRoutes,
    ])
      routes.add(route);
    registries.identityResolvers.add(bearerResolver());
    registries.identityResolvers.add(sessionCookieResolver());
    const guest = guestResolver();
    container.register('guestResolver', asValue(guest));
    registries.identityResolvers.add(guest);
    for (const job of purgeJobs) registries.systemJobs.add(job);
  },
  boot({ container, logger, onClose, options, envOptions }) {
    // Checked by register() already.
    const { purgeIntervalMs } = optionsSchema.parse({ ...(options as object), ...(envOptions as object) });
    const sessions = container.resolve<SessionsService>('sessions');
    const tokens = container.resolve<TokensService>('tokens');
    const emailTokens = container.resolve<EmailTokensService>('emailTokens');
    const users = container.resolve<UsersService>('users');
    // The spec's background task: expired sessions (and expired tokens, and stale per-client lockout counts) are purged every 5 minutes
    // (plugins.options.auth.purgeIntervalMs). A round still running when the next is due is not doubled.
    let running: Promise<unknown> | null = null;
    const timer = setInterval(() => {
      running ??= Promise.all([
        sessions.purgeExpired().catch((err) => logger.warn({ err }, 'expired-session cleanup failed')),
        tokens.purgeExpired().catch((err) => logger.warn({ err }, 'expired-token cleanup failed')),
        emailTokens.purgeExpired().catch((err) => logger.warn({ err }, 'expired-link cleanup failed')),
        users.purgeClientFailures().catch((err) => logger.warn({ err }, 'per-client lockout cleanup failed')),
      ]).finally(() => {
        running = null;
      });
    }, purgeIntervalMs);
    timer.unref();
    onClose(async () => {
      clearInterval(timer);
      await running;
    });
    onClose(sessions.connectEvents(container.resolve<EventBus>('events')));
    // A tenant created on any instance: its hostname resolves here on the next request.
    onClose(container.resolve<TenantsService>('tenants').connectEvents(container.resolve<EventBus>('events')));
    // API keys and website tokens: invalidations to and from every instance; user and role changes reach them.
    onClose(tokens.connectEvents(container.resolve<EventBus>('events')));
    users.onIdentityChange(tokens);
    // Public access granted or withdrawn on any instance applies to the next guest request here.
    const guest = container.resolve<ReturnType<typeof guestResolver>>('guestResolver');
    onClose(
      container.resolve<EventBus>('events').subscribe(GUEST_GRANTS_CHANGED, (event) => {
        const tenantId = (event.payload as { tenantId?: unknown })?.tenantId;
        if (typeof tenantId === 'string') guest.forget(tenantId);
      }),
    );
    // Back after a loss of the other instances' events: every tenant's guest grants are read again.
    onClose(container.resolve<EventBus>('events').subscribe(EVENTS_RESYNC, () => guest.forget()));
  },
});

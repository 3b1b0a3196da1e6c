import {
  type DbLock,
  type CmsConfig,
  definePlugin,
  type EventBus,
  type Logger,
  optional,
  isOpenDuring,
  type PluginRegisterContext,
  type SettingsService,
} from '../../kernel/sdk.js';
import { asFunction, asValue } from 'awilix';
import type { Context, Next } from 'koa';
import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import { SETUP_MIGRATIONS } from './migrations.js';
import { SetupStateRow } from './models/setup-state.js';
import { setupRoutes } from './routes.js';
import { formActionRoutes } from './form-actions.js';
import type { ContentSeeder } from './default-collections.js';
import { SettingsRegistry } from './settings-registry.js';
import { settingsRoutes } from './routes-settings.js';
import { settingsCommand } from './settings-command.js';
import { SetupService, type AdminCreator } from './setup-service.js';
import type {} from '../update-check/public.js'; // the container key updateCheck (type only)

/**
 * plugins.options.setup. The CMS_SETUP_ADMIN_* variables form one block (plugin.json), `environmentAdmin`: it counts
 * only when both the email and the password are set, and only when the file names no `admin`. It is checked as
 * before the one configuration path: by the account creation at a first start, not at every boot (an install set up
 * long ago with a short password left in its environment still boots, and `admin@localhost` is accepted).
 */
const optionsSchema = z.object({
  /** Headless setup: seed and create this admin at first start. */
  admin: z.object({ email: z.string().email(), password: z.string().min(8), username: z.string().min(1).optional() }).optional(),
  /** The same from CMS_SETUP_ADMIN_EMAIL / _PASSWORD / _USERNAME (a fallback for `admin`). */
  environmentAdmin: z.object({ email: z.string(), password: z.string(), username: z.string().optional() }).optional(),
});

/** The optional container key `contentClient` (the content plugin), with the system identity. */
function contentClientOf(cradle: object): ContentSeeder | null {
  try {
    const factory = (cradle as { contentClient?: () => ContentSeeder }).contentClient;
    return factory ? factory() : null;
  } catch {
    return null;
  }
}

/** The optional container key `themes` (the themes plugin): seeding writes the default theme through it. */
function themesOf(cradle: object): { seedDefault(tenantId: string): Promise<unknown> } | null {
  try {
    return (cradle as { themes?: { seedDefault(tenantId: string): Promise<unknown> } }).themes ?? null;
  } catch {
    return null;
  }
}

/** The redirect to /setup while setup is incomplete, and the 'setup' health check (state and progress). */
function addRedirectAndHealth(registries: PluginRegisterContext['registries'], current: () => SetupService | null): void {
  registries.middleware.add({
    id: 'setup-redirect',
    // Before identity: while incomplete, even a request with bad credentials is simply sent to /setup.
    stage: 'beforeIdentity',
    handler(ctx: Context, next: Next) {
      const service = current();
      // Routes declared `openDuring: ['setup']` stay reachable; everything else answers 302 to /setup.
      // Once setup is known complete, without a promise of its own.
      if (!service || service.readyNow || isOpenDuring(ctx, 'setup')) return next();
      return service.isReady().then((ready) => {
        if (ready) return next();
        ctx.status = 302;
        ctx.redirect('/setup');
      });
    },
  });
  registries.healthChecks.add({
    id: 'setup',
    exposeAs: 'setup',
    async check() {
      const service = current();
      if (!service) return { status: 'ok', state: 'incomplete', progress: 0, seeded: false, complete: false };
      const s = await service.status();
      return {
        status: s.error ? 'degraded' : 'ok',
        state: s.state,
        progress: s.progress,
        seeded: s.seeded,
        complete: s.complete,
        ...(s.error ? { error: s.error } : {}),
      };
    },
  });
}

/** A factory: each kernel has its own service slot (set at boot, read by the redirect and the health check). */
export default definePlugin(() => {
  let service: SetupService | null = null;
  return {
    options: optionsSchema,
    register({ container, routes, registries, migrations, models, config }) {
      models.add(SetupStateRow);
      for (const m of SETUP_MIGRATIONS) migrations.add(m);
      // Every setting the installation knows (the catalogue; plugins declare theirs here: public.ts).
      const catalogue = new SettingsRegistry();
      // The kernel's settings store reads privacy and the seeded defaults from it.
      container.register('settingsCatalogue', asValue(catalogue));
      container.register(
        'setup',
        asFunction(
          (cradle: { sequelize: Sequelize; settings: SettingsService; logger: Logger; events: EventBus }) =>
            new SetupService(
              cradle.sequelize,
              config,
              cradle.settings,
              cradle.logger,
              () => contentClientOf(cradle),
              () => themesOf(cradle),
              cradle.events,
              () => optional(cradle, 'updateCheck')?.ensureSigningKey(),
            ),
        ).singleton(),
      );
      for (const route of [...setupRoutes, ...formActionRoutes, ...settingsRoutes]) routes.add(route);
      registries.cliCommands.add(settingsCommand);
      addRedirectAndHealth(registries, () => service);
    },
    async boot({ container, config, options, logger }) {
      const booted = container.resolve<SetupService>('setup');
      service = booted;
      const admin = options.admin ?? options.environmentAdmin;
      if (!admin || (await booted.isReady())) return;
      // Several instances started together on an empty database: one sets up, the others wait for the
      // lock (shared through the database) and then find setup complete.
      const release = await container.resolve<DbLock>('lock').acquire('setup:headless', { ttlMs: 120000, waitMs: 120000 });
      try {
        if (await booted.isReady()) return;
        await headlessSetup(booted, container.resolve<AdminCreator>('users'), config, admin);
      } finally {
        await release();
      }
      logger.info({ admin: admin.email }, 'setup completed from configuration (headless)');
    },
    close() {
      service = null;
    },
  };
});

/** What the wizard does, from configuration: seed the running database, then create the admin. */
async function headlessSetup(
  service: SetupService,
  users: AdminCreator,
  config: CmsConfig,
  admin: { email: string; password: string; username?: string },
) {
  const db = config.db;
  const target = {
    type: db.type,
    host: db.host,
    port: db.port,
    database: db.type === 'sqlite' ? db.storage : db.name,
    username: db.user,
    password: db.password,
  };
  // The wizard's first step: the database this instance runs on answers, so it is validated.
  await service.validateRunningDatabase();
  await service.seed(target);
  await service.complete(users, admin);
}

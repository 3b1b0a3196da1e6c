import { z } from 'zod';
import { defineRoute, type RouteDefinition, optional } from '../../kernel/sdk.js';
import { dbTargetSchema } from './db-target.js';
import { setupPage } from './page.js';
import { auditedDbTest, auditSeeding, auditSetupComplete, auditSetupStep } from './setup-audit.js';

/** The admin UI's wizard (the optional container key `adminUi`), or null. */
const adminUiSetupPage = (scope: object): string | null => optional(scope, 'adminUi')?.setupPage() ?? null;
const user = z.object({ _id: z.string(), email: z.string(), username: z.string(), role: z.literal('admin') });

export const setupRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/setup/status',
    openDuring: ['setup', 'maintenance'],
    permission: 'public',
    tags: ['setup'],
    rateLimit: false,
    summary: 'Setup state: incomplete, seeded or ready; and the site name the sign-in page shows',
    description:
      "siteName: the SITE_NAME setting of the tenant the request's hostname resolves to (the setup wizard's site name), null before seeding or when unset. The sign-in page reads it here; GET /api/theme/public gives theme branding only.",
    request: {},
    response: z.object({
      state: z.enum(['incomplete', 'seeded', 'ready']),
      dbValidated: z.boolean(),
      seeded: z.boolean(),
      complete: z.boolean(),
      siteName: z.string().nullable(),
    }),
    handler: async ({ scope, identity }) => {
      const { state, dbValidated, seeded, complete } = await scope.setup.status();
      // Public: only the public SITE_NAME setting of the caller's own tenant (never another tenant's).
      const name = seeded
        ? await optional(scope, 'settings')
            ?.get('SITE_NAME', identity.tenantId)
            .catch(() => null)
        : null;
      return { state, dbValidated, seeded, complete, siteName: typeof name === 'string' && name.trim() ? name.trim() : null };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/setup/test-db',
    openDuring: ['setup'],
    permission: 'public',
    tags: ['setup'],
    summary: "Tests a database connection (15 s limit); 400 DB_CONNECTION_FAILED with the driver's reason",
    request: { body: dbTargetSchema },
    response: z.object({
      authenticated: z.literal(true),
      dbStats: z.object({ collections: z.number(), dataSize: z.number() }),
      warnings: z.array(z.string()),
    }),
    handler: ({ ctx, body, scope }) => auditedDbTest(ctx, body, () => scope.setup.testDb(body)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/setup/seed-db',
    openDuring: ['setup'],
    permission: 'public',
    tags: ['setup'],
    summary:
      'Seeds the database in the background (private config and the settings catalogue: 23 public and 12 private settings); progress at /api/system/health data.setup.progress',
    request: { body: dbTargetSchema },
    response: z.object({ started: z.literal(true) }),
    handler: async ({ ctx, body, scope }) => {
      await scope.setup.startSeeding(body);
      await auditSeeding(ctx, body, scope.setup);
      return { started: true };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/setup/complete',
    openDuring: ['setup'],
    permission: 'public',
    tags: ['setup'],
    summary: 'Creates the first admin, signs them in and marks setup ready; 409 SETUP_NOT_SEEDED before seeding',
    request: {
      body: z.object({
        username: z.string().min(1).max(191).optional(),
        email: z.string().email().max(191),
        password: z.string().min(8, 'at least 8 characters').max(1024),
        siteName: z.string().min(1).max(191).optional(),
      }),
    },
    response: z.object({ user }),
    async handler({ ctx, body, scope }) {
      const created = await scope.setup.complete(scope.users, body);
      await auditSetupComplete(ctx, created, body.siteName);
      // The admin just chose the password: the session opens the sudo-mode window.
      await scope.signIn.startSession(ctx, created._id, { passwordProven: true });
      return { user: created };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/setup/reinitialize',
    openDuring: ['setup'],
    permission: 'manage:system',
    tags: ['setup'],
    summary: 'After setup (manage:system only): writes any missing default settings again; users and content are untouched',
    request: {},
    response: z.object({ settingsWritten: z.number() }),
    handler: async ({ ctx, scope }) => {
      const result = await scope.setup.reinitialize();
      await auditSetupStep(ctx, {
        operation: 'reinitialized',
        level: 'medium',
        message: `Setup reinitialised: ${result.settingsWritten} missing default setting(s) written`,
        details: result,
      });
      return result;
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/setup',
    openDuring: ['setup'],
    permission: 'public',
    tags: ['setup'],
    envelope: false,
    rateLimit: false,
    summary:
      "The setup wizard page while setup is incomplete (HTML: the admin UI's wizard when the admin-ui plugin is enabled and built, else a plain page); afterwards a redirect to /",
    request: {},
    async handler({ ctx, scope }) {
      if (await scope.setup.isReady()) return ctx.redirect('/');
      ctx.type = 'html';
      ctx.body = adminUiSetupPage(scope) ?? setupPage();
    },
  }),
];

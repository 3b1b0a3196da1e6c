import type { Context } from 'koa';
import { z } from 'zod';
import { NotFoundError, ValidationError, defineRoute, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';
import { dbTargetSchema } from './db-target.js';
import { auditedDbTest, auditSeeding, auditSetupComplete } from './setup-audit.js';

/** The page's database form: the spec's field names (name, user) for the API's (database, username). */
const databaseForm = z.object({
  type: z.enum(['sqlite', 'mariadb']),
  host: z.string().max(255).optional(),
  port: z.coerce.number().int().min(1).max(65535).optional(),
  name: z.string().min(1).max(191),
  user: z.string().max(191).optional(),
  password: z.string().max(1024).optional(),
});

const adminForm = z.object({
  username: z.string().min(1).max(191).optional(),
  email: z.string().email().max(191),
  password: z.string().min(8, 'at least 8 characters').max(1024),
  confirmPassword: z.string().max(1024).optional(),
  siteName: z.string().min(1).max(191).optional(),
});

/** Every field either form may carry, for the route's declaration; each action then checks its own form. */
const formFields = z.object({
  type: z.string().max(32).optional(),
  host: z.string().max(255).optional(),
  port: z.union([z.string().max(8), z.number()]).optional(),
  name: z.string().max(191).optional(),
  user: z.string().max(191).optional(),
  password: z.string().max(1024).optional(),
  username: z.string().max(191).optional(),
  email: z.string().max(191).optional(),
  confirmPassword: z.string().max(1024).optional(),
  siteName: z.string().max(191).optional(),
});

function parse<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message }));
  throw new ValidationError(`Invalid form: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

const toTarget = (form: z.output<typeof databaseForm>) =>
  dbTargetSchema.parse({
    type: form.type,
    host: form.host || undefined,
    port: form.port,
    database: form.name,
    username: form.user,
    password: form.password,
  });

type Action = (ctx: Context, body: unknown, scope: RouteContext['scope']) => Promise<Record<string, unknown>>;

const ACTIONS: Record<string, Action> = {
  async testDatabase(ctx, body, scope) {
    const target = toTarget(parse(databaseForm, body));
    const details = await auditedDbTest(ctx, target, () => scope.setup.testDb(target));
    return { success: true, message: 'Connection successful', details };
  },
  async seedDatabase(ctx, body, scope) {
    const target = toTarget(parse(databaseForm, body));
    await scope.setup.startSeeding(target);
    await auditSeeding(ctx, target, scope.setup);
    return { success: true, message: 'Seeding started; progress at /api/system/health (data.setup.progress)' };
  },
  async completeSetup(ctx, body, scope) {
    const form = parse(adminForm, body);
    if (form.confirmPassword !== undefined && form.confirmPassword !== form.password) {
      throw new ValidationError('The passwords do not match', [{ path: 'body.confirmPassword', message: 'does not match password' }]);
    }
    const { confirmPassword: _, ...input } = form;
    const user = await scope.setup.complete(scope.users, input);
    await auditSetupComplete(ctx, user, input.siteName);
    // The admin just chose the password: the session opens the sudo-mode window.
    await scope.signIn.startSession(ctx, user._id, { passwordProven: true });
    return { success: true, message: 'Setup complete', user };
  },
};

/**
 * The setup page's form actions (`POST /setup?/testDatabase`, `?/seedDatabase`, `?/completeSetup`),
 * the same steps as the setup API in the spec's form-action shapes: `{success, message, details}` or
 * `{success: false, error, code}` (plus `manualCommand` when the driver is missing). They take JSON or
 * an HTML form body.
 */
export const formActionRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    path: '/setup',
    openDuring: ['setup'],
    permission: 'public',
    tags: ['setup'],
    envelope: false,
    summary: "The setup page's form actions: ?/testDatabase, ?/seedDatabase, ?/completeSetup",
    description:
      'testDatabase and seedDatabase take {type, host, port, name, user, password}; completeSetup takes {username, email, password, confirmPassword?, siteName?}. ' +
      'Success: 200 {success: true, message, details?, user?}. Failure: the error status with {success: false, error: <reason>, code: <CODE>}, and manualCommand when the database driver is not installed. Unknown action: 404.',
    errorShape: 'form',
    request: { body: formFields.optional(), form: true },
    response: z.object({
      success: z.boolean(),
      message: z.string().optional(),
      details: z.unknown().optional(),
      error: z.string().optional(),
      code: z.string().optional(),
      manualCommand: z.string().optional(),
    }),
    async handler({ ctx, body, scope }) {
      const name = ctx.querystring.replace(/^\//, '');
      const action = Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
      if (!action) throw new NotFoundError(`Unknown form action '${name}'; use ?/testDatabase, ?/seedDatabase or ?/completeSetup`);
      ctx.body = await action(ctx, body, scope);
    },
  }),
];

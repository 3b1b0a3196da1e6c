import { z } from 'zod';
import {
  AuthenticationRequiredError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  hasPermission,
  type Identity,
  defineRoute,
  type RouteDefinition,
  type Registries,
} from '../../kernel/sdk.js';
import { LayoutNeedsUserError, UnknownWidgetError } from './errors.js';

const tags = ['dashboard'];

export const licenseState = z
  .object({
    widgetId: z.string(),
    license: z.enum(['freemium', 'paid']),
    allowed: z.boolean(),
    reason: z.enum(['freemium', 'trial', 'licensed', 'expired']),
    trialEndsAt: z.string(),
    licensee: z.string().optional(),
    keyProblem: z.string().optional(),
  })
  .meta({ id: 'LicenseState' });

const layoutItem = z.strictObject({
  id: z.string().min(1).max(64),
  x: z.number().int().min(0).max(1000),
  y: z.number().int().min(0).max(10000),
  w: z.number().int().min(1).max(12),
  h: z.number().int().min(1).max(12),
});
const layoutSchema = z.strictObject({ widgets: z.array(layoutItem).max(100) }).meta({ id: 'DashboardLayout' });

async function layoutUser(scope: Record<string, any>, identity: Identity) {
  if (!identity.userId || identity.kind !== 'user') throw new LayoutNeedsUserError();
  const user = await scope.users.findById(identity.userId);
  if (!user) throw new NotFoundError('Your user account was not found');
  return user;
}

/** The layout stored in preferences.dashboard, without widgets that are no longer registered. */
function storedLayout(
  preferences: string,
  registries: Registries,
): { widgets: Array<z.output<typeof layoutItem>>; updatedAt: string | null } {
  let prefs: Record<string, any> = {};
  try {
    prefs = JSON.parse(preferences) as Record<string, any>;
  } catch {
    prefs = {};
  }
  const parsed = layoutSchema.safeParse({ widgets: prefs.dashboard?.widgets ?? [] });
  const widgets = parsed.success ? parsed.data.widgets.filter((w) => registries.widgets.has(w.id)) : [];
  return { widgets, updatedAt: typeof prefs.dashboard?.updatedAt === 'string' ? prefs.dashboard.updatedAt : null };
}

export const widgetRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/widgets',
    permission: 'dashboard:read',
    tags,
    request: {},
    summary:
      'The registered widgets (widget folders and plugin contributions) with their licence state and whether the caller may read their data',
    response: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string().optional(),
        icon: z.string().optional(),
        version: z.string().optional(),
        license: z.enum(['freemium', 'paid']),
        category: z.string().optional(),
        defaultSize: z.object({ w: z.number(), h: z.number() }).optional(),
        endpoint: z.string(),
        permission: z.string(),
        component: z.string(),
        canRead: z.boolean(),
        licenseState: licenseState,
      }),
    ),
    async handler({ scope, identity }) {
      const license = scope.dashboardLicense;
      const out = [];
      for (const w of scope.registries.widgets.list()) {
        out.push({
          id: w.id,
          name: w.name,
          description: w.description,
          icon: w.icon,
          version: w.version,
          license: w.license,
          category: w.category,
          defaultSize: w.defaultSize,
          endpoint: w.endpoint,
          permission: w.permission,
          component: w.component,
          canRead: hasPermission(identity, w.permission),
          licenseState: await license.state(w),
        });
      }
      return out.sort((a, b) => a.id.localeCompare(b.id));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/layout',
    permission: 'dashboard:read',
    tags,
    request: {},
    summary: "The caller's dashboard layout (which widgets, position and size), from their preferences; empty when none is saved",
    response: z.object({ widgets: z.array(layoutItem), updatedAt: z.string().nullable() }),
    async handler({ scope, identity }) {
      return storedLayout((await layoutUser(scope, identity)).preferences, scope.registries);
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/dashboard/layout',
    permission: 'dashboard:read',
    tags,
    request: { body: layoutSchema },
    summary: "Saves the caller's dashboard layout in preferences.dashboard; every id must be a registered widget, each once",
    response: z.object({ widgets: z.array(layoutItem), updatedAt: z.string().nullable() }),
    async handler({ scope, identity, body }) {
      const user = await layoutUser(scope, identity);
      const registries = scope.registries;
      const seen = new Set<string>();
      body.widgets.forEach((w: { id: string }, i: number) => {
        if (!registries.widgets.has(w.id))
          throw new ValidationError(`Unknown widget '${w.id}'`, [{ path: `body.widgets.${i}.id`, message: 'not a registered widget' }]);
        if (seen.has(w.id))
          throw new ValidationError(`Widget '${w.id}' appears twice`, [{ path: `body.widgets.${i}.id`, message: 'duplicate' }]);
        seen.add(w.id);
      });
      const updatedAt = new Date().toISOString();
      await scope.users.updateAttributes(user.id, { preferences: { dashboard: { widgets: body.widgets, updatedAt } } });
      return { widgets: body.widgets, updatedAt };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/system/license-status',
    permission: 'public',
    tags: ['dashboard', 'system'],
    request: { query: z.object({ type: z.enum(['dashboard']).default('dashboard'), id: z.string().min(1).max(64) }) },
    summary: 'Licence state of a widget for the UI: allowed, reason (freemium|trial|licensed|expired), trial end, licensee',
    description:
      "Declared public so it bypasses the system namespace's system:read, then checked here: any signed-in identity with dashboard:read or system:read (viewers included); 401 for guests.",
    response: licenseState,
    async handler({ scope, identity, query }) {
      if (identity.kind === 'guest') throw new AuthenticationRequiredError();
      if (!hasPermission(identity, 'dashboard:read') && !hasPermission(identity, 'system:read'))
        throw new ForbiddenError("This needs the permission 'dashboard:read'");
      const widget = scope.registries.widgets.get(query.id);
      if (!widget) throw new UnknownWidgetError(query.id);
      return scope.dashboardLicense.state(widget);
    },
  }),
];

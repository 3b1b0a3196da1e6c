import { z } from 'zod';
import { AuthenticationRequiredError, defineRoute, type HttpMethod, type RouteDefinition, optional } from '../../kernel/sdk.js';
import { adminThemeInput, brandingInput, storedAdminThemeSchema, themeName, themeSettingsInput } from './theme-schemas.js';
import { auditThemeChanges } from './theme-audit.js';
import type { ThemesService } from './themes-service.js';

const tags = ['theme'];
const themeId = z.string().uuid();
const removed = z.array(z.string()).meta({ description: 'What the CSS sanitiser removed from customCss, e.g. ["url()", "@import"]' });

const summary = z.object({
  id: z.string(), name: z.string(), isActive: z.boolean(), isDefault: z.boolean(),
  density: z.string(), variant: z.string(), updatedAt: z.string(),
}).meta({ id: 'ThemeSummary' });
const themeView = summary.extend({
  presetSource: z.string().nullable(), createdAt: z.string(),
  config: z.object({
    adminTheme: storedAdminThemeSchema,
    palette: z.record(z.string(), z.record(z.string(), z.string())).meta({ description: 'family (primary, secondary, tertiary, success, warning, error, neutral) -> shade 50..950 -> hex' }),
    colors: z.record(z.string(), z.string()).meta({ description: 'background, surface, text, textMuted, border, onPrimary' }),
    branding: z.object({ siteName: z.string().nullable(), logoUrl: z.string().nullable(), accentColor: z.string().nullable() }),
  }),
}).meta({ id: 'Theme' });
const branding = z.object({ siteName: z.string().nullable(), logoUrl: z.string().nullable(), accentColor: z.string().nullable() }).meta({ id: 'ThemeBranding' });
const warning = z.object({
  code: z.enum(['LOW_CONTRAST', 'CSS_REMOVED']), message: z.string(), pair: z.string().optional(), foreground: z.string().optional(),
  background: z.string().optional(), ratio: z.number().optional(), required: z.number().optional(), removed: z.array(z.string()).optional(),
}).meta({ id: 'ThemeImportWarning' });

/** A route without input that answers for the caller's tenant from the themes service. */
function tenantRoute(
  method: HttpMethod,
  path: string,
  permission: string,
  summary: string,
  response: z.ZodType,
  answer: (themes: ThemesService, tenantId: string) => unknown,
): RouteDefinition {
  return defineRoute({
    method, path, permission, tags, request: {}, summary, response,
    handler: ({ scope, identity }) => answer(scope.themes, identity.tenantId),
  });
}

/** POST with body {themeId} (system:settings): the service's answer for that theme of the caller's tenant. */
function themeAction(
  path: string,
  summary: string,
  response: z.ZodType,
  act: (themes: ThemesService, tenantId: string, themeId: string) => Promise<unknown>,
): RouteDefinition {
  return defineRoute({
    method: 'POST', path, permission: 'system:settings', tags, request: { body: z.object({ themeId }) }, summary, response,
    handler: ({ scope, identity, body }) => act(scope.themes, identity.tenantId, body.themeId),
  });
}

/** A saved theme as the routes answer it: the theme with `removed`, what the CSS sanitiser took out. */
async function withRemoved<T extends object>(saved: Promise<{ theme: T; removed: string[] }>): Promise<T & { removed: string[] }> {
  const { theme, removed: gone } = await saved;
  return { ...theme, removed: gone };
}

/** Every route of the spec's theme table, plus the effective theme for the admin UI and the bundled presets. */
export const themeRoutes: RouteDefinition[] = [
  tenantRoute('GET', '/api/theme/admin-theme', 'system:read', "The active theme's admin config (StoredAdminTheme), or {} when the tenant has no active theme",
    z.union([storedAdminThemeSchema, z.object({})]), (themes, tenantId) => themes.adminTheme(tenantId)),
  defineRoute({
    method: 'POST', path: '/api/theme/admin-theme', permission: 'system:settings', tags, request: { body: adminThemeInput },
    summary: 'Saves a partial StoredAdminTheme on the active theme (customCss sanitised); creates an active "Default" theme when there is none',
    description: 'features and lockedSettings merge key by key; layoutState is replaced. `removed` lists what the CSS sanitiser took out.',
    response: storedAdminThemeSchema.extend({ removed }),
    async handler({ scope, identity, body }) {
      const { adminTheme, removed: gone } = await scope.themes.saveAdminTheme(identity.tenantId, body);
      return { ...adminTheme, removed: gone };
    },
  }),
  tenantRoute('DELETE', '/api/theme/admin-theme', 'system:settings', "Resets the active theme's admin config to the defaults (palette, colours and branding stay); 404 THEME_NOT_FOUND without an active theme",
    storedAdminThemeSchema, (themes, tenantId) => themes.resetAdminTheme(tenantId)),
  tenantRoute('GET', '/api/theme/list', 'system:read', "The tenant's themes (ThemeSummary[]), oldest first",
    z.array(summary), (themes, tenantId) => themes.list(tenantId)),
  defineRoute({
    method: 'POST', idempotent: true, path: '/api/theme/create', permission: 'system:settings', tags, status: 201,
    request: { body: z.object({ name: themeName, settings: themeSettingsInput.optional() }) },
    summary: 'Creates a theme; settings is the theme JSON without its name ({adminTheme?, palette?, colors?, branding?}); names are unique per tenant (409 CONFLICT)',
    description: "The tenant's first theme becomes active and default.",
    response: themeView.extend({ removed }),
    handler: ({ scope, identity, body }) => withRemoved(scope.themes.create(identity.tenantId, body.name, body.settings)),
  }),
  themeAction('/api/theme/activate', 'Makes the theme the active one of the tenant (applied across the admin UI)', themeView,
    (themes, tenantId, id) => themes.activate(tenantId, id)),
  defineRoute({
    method: 'POST', path: '/api/theme/clone', permission: 'system:settings', tags, status: 201,
    request: { body: z.object({ sourceId: themeId, name: themeName }) },
    summary: 'Copies a theme under a new name (neither active nor default)',
    response: themeView,
    handler: ({ scope, identity, body }) => scope.themes.clone(identity.tenantId, body.sourceId, body.name),
  }),
  themeAction('/api/theme/delete', 'Deletes a theme; the active and the default theme cannot be deleted (409 CONFLICT)',
    z.object({ deleted: z.literal(true), id: z.string() }), (themes, tenantId, id) => themes.delete(tenantId, id)),
  themeAction('/api/theme/set-default', "Marks the theme as the tenant's system default", themeView,
    (themes, tenantId, id) => themes.setDefault(tenantId, id)),
  defineRoute({
    method: 'POST', path: '/api/theme/import-preset', permission: 'system:settings', tags, envelope: false,
    request: { body: z.object({ presetJson: z.string().min(2).max(256 * 1024) }) },
    summary: 'Creates a theme from a preset: a full theme JSON or a shorthand palette {name?, primary, secondary?, tertiary?, success?, warning?, error?, surface?}',
    description: 'Answers {success, data, warnings}: seeds expand to 50..950 ladders (OKLCH); WCAG AA contrast failures and CSS removals are warnings, never a refusal. A taken name gets " (2)", " (3)"...',
    response: z.object({ success: z.literal(true), data: themeView, warnings: z.array(warning) }),
    async handler({ ctx, scope, identity, body }) {
      const { theme, warnings } = await scope.themes.importPreset(identity.tenantId, body.presetJson);
      ctx.body = { success: true, data: theme, warnings };
    },
  }),
  tenantRoute('GET', '/api/theme/get-current-theme', 'system:read', 'The active theme record; 404 THEME_NOT_FOUND when the tenant has none',
    themeView, (themes, tenantId) => themes.current(tenantId)),
  defineRoute({
    method: 'POST', path: '/api/theme/update-theme', permission: 'system:settings', tags,
    request: { body: z.object({ themeId, customCss: z.string().max(100_000) }) },
    summary: "Replaces the theme's customCss only (sanitised; `removed` lists what was taken out)",
    response: themeView.extend({ removed }),
    handler: ({ scope, identity, body }) => withRemoved(scope.themes.updateCss(identity.tenantId, body.themeId, body.customCss)),
  }),
  defineRoute({
    method: 'POST', path: '/api/theme/update-branding', permission: 'system:settings', tags,
    request: { body: brandingInput.extend({ themeId }) },
    summary: "Changes the theme's public branding (siteName, logoUrl, accentColor; null clears one); the tenant's cached branding is dropped",
    response: themeView,
    async handler({ scope, identity, body }) {
      const { themeId: id, ...branding } = body;
      return scope.themes.updateBranding(identity.tenantId, id, branding);
    },
  }),
  defineRoute({
    method: 'GET', path: '/api/theme/public', permission: 'public', tags,
    openDuring: ['maintenance'],
    request: {
      query: z.object({
        hostname: z.string().max(253).optional().catch(undefined).meta({ description: "Resolves the tenant by its hostnames (POST /api/tenants)" }),
        tenantId: z.string().max(64).optional().catch(undefined).meta({ description: 'Names the tenant directly (wins over hostname)' }),
      }),
      // The spec: always 200. A value with control characters is dropped (no tenant), not refused.
      tolerantQuery: true,
    },
    summary: 'Public branding {siteName, logoUrl, accentColor} of a tenant; always 200, all null when no tenant resolves, the tenant is default, or anything fails; cached 10 minutes per tenant',
    description:
      "The tenant's theme branding only, as the spec gives it (never the SITE_NAME setting: the sign-in page reads the site's name from GET /api/setup/status). A query that cannot be read (control characters, repeated or over-long values) counts as no tenant: still 200 with nulls.",
    response: branding,
    handler: ({ scope, query }) => scope.themes.publicBranding(query),
  }),
  defineRoute({
    method: 'GET', path: '/api/theme/effective', permission: 'public', tags, request: {},
    summary: "The theme as the caller sees it: the active theme merged with the caller's preferences.theme, locks applied, as CSS variables",
    description: "Any signed-in identity (401 for guests). Without an active theme the built-in defaults apply (themeId null). `branding.siteName` falls back to the SITE_NAME setting (the setup wizard's site name).",
    response: z.object({
      themeId: z.string().nullable(), name: z.string().nullable(),
      settings: z.object({ density: z.string(), variant: z.string(), reducedMotion: z.boolean(), highContrast: z.boolean(), layoutState: z.record(z.string(), z.boolean()), features: z.record(z.string(), z.boolean()) }),
      preferences: z.record(z.string(), z.unknown()), locked: z.array(z.string()),
      cssVariables: z.record(z.string(), z.string()), customCss: z.string(),
      branding: z.object({ siteName: z.string().nullable(), logoUrl: z.string().nullable(), accentColor: z.string().nullable() }),
    }).meta({ id: 'EffectiveTheme' }),
    async handler({ scope, identity }) {
      if (identity.kind === 'guest') throw new AuthenticationRequiredError();
      let preferences: string | null = null;
      if (identity.userId) {
        const user = await optional(scope, 'users')?.findById(identity.userId);
        preferences = user && (user.tenant_id === undefined || user.tenant_id === identity.tenantId) ? user.preferences : null;
      }
      const effective = await scope.themePreferences.effective(identity.tenantId, preferences);
      // The admin UI's name for the site: the theme's branding, else the SITE_NAME setting (the setup wizard's site name).
      if (!effective.branding.siteName) {
        // No settings service (setup plugin disabled): no name.
        const name = await optional(scope, 'settings')?.get('SITE_NAME', identity.tenantId);
        if (typeof name === 'string' && name.trim()) effective.branding.siteName = name.trim();
      }
      return effective;
    },
  }),
  defineRoute({
    method: 'GET', path: '/api/theme/presets', permission: 'system:read', tags, request: {},
    summary: 'The bundled presets (themes/*.json): id, name and the JSON to pass to import-preset',
    response: z.array(z.object({ id: z.string(), name: z.string(), presetJson: z.string() })),
    handler: ({ scope }) => scope.themePresets().map((p) => ({ id: p.id, name: p.name, presetJson: p.json })),
  }),
];

// Every changing route records what it did in the audit trail.
auditThemeChanges(themeRoutes);

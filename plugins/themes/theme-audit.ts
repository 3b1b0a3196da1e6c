import { recordRequestAudit, wrapNamedRoutes, type RouteContext, type RouteDefinition } from '../../kernel/sdk.js';

/** What each changing theme route did, for the entry's message. */
const CHANGES: Record<string, { operation: string; text: string }> = {
  'POST /api/theme/admin-theme': { operation: 'admin-theme-saved', text: 'Admin theme settings saved' },
  'DELETE /api/theme/admin-theme': { operation: 'admin-theme-reset', text: 'Admin theme settings reset to the defaults' },
  'POST /api/theme/create': { operation: 'created', text: 'Theme created' },
  'POST /api/theme/activate': { operation: 'activated', text: 'Theme activated' },
  'POST /api/theme/clone': { operation: 'cloned', text: 'Theme cloned' },
  'POST /api/theme/delete': { operation: 'deleted', text: 'Theme deleted' },
  'POST /api/theme/set-default': { operation: 'default-set', text: 'Default theme set' },
  'POST /api/theme/import-preset': { operation: 'preset-imported', text: 'Theme imported from a preset' },
  'POST /api/theme/update-theme': { operation: 'css-updated', text: 'Theme custom CSS replaced' },
  'POST /api/theme/update-branding': { operation: 'branding-updated', text: 'Theme branding changed' },
};

/**
 * Theme changes go into the audit trail: each changing route (permission system:settings) records, once
 * it succeeded, what it did to which theme (id and name; never the CSS or other content).
 */
export function auditThemeChanges(routes: RouteDefinition[]): void {
  wrapNamedRoutes(routes, CHANGES, (handler, change, route) => async (context: RouteContext) => {
    const result = await handler(context);
    const answer = (route.envelope === false ? (context.ctx.body as { data?: unknown } | undefined)?.data : result) as
      | { id?: string; name?: string }
      | undefined;
    const id = answer?.id ?? (context.body as { themeId?: string } | undefined)?.themeId ?? null;
    const name = typeof answer?.name === 'string' ? answer.name : null;
    await recordRequestAudit(context.ctx, {
      domain: 'themes',
      operation: change.operation,
      action: `themes.${change.operation}`,
      outcome: 'success',
      level: change.operation === 'css-updated' || change.operation === 'admin-theme-saved' ? 'medium' : 'low',
      message: name ? `${change.text}: "${name}"` : change.text,
      target: { type: 'theme', id },
      details: { ...(name ? { name } : {}) },
    });
    return result;
  });
}

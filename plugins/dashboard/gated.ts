import type { RouteDefinition } from '../../kernel/sdk.js';
import { LicenseRequiredError } from './errors.js';

/**
 * A dashboard route behind its widget's licence (the spec's widget-id table): paid widgets answer 403
 * LICENSE_REQUIRED after the trial without a valid key. Checked after the permission checks.
 */
export function gated(widgetId: string, route: RouteDefinition): RouteDefinition {
  return {
    ...route,
    description: `${route.description ? `${route.description} ` : ''}Widget '${widgetId}': licence per its widget.json (403 LICENSE_REQUIRED when a paid widget's trial has ended without a key).`,
    async handler(context) {
      const widget = context.scope.registries.widgets.get(widgetId);
      if (widget) {
        const state = await context.scope.dashboardLicense.state(widget);
        if (!state.allowed) throw new LicenseRequiredError(widgetId, state.trialEndsAt);
      }
      return route.handler(context);
    },
  };
}

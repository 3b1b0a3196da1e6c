import type { RouteDefinition } from '../../kernel/http/route-table.js';
import type { Registries } from '../../kernel/registries/index.js';
import { LicenseRequiredError } from './errors.js';
import type { LicenseService } from './license-service.js';

/**
 * A dashboard route behind its widget's licence (the spec's widget-id table): paid widgets answer 403
 * LICENSE_REQUIRED after the trial without a valid key. Checked after the permission checks.
 */
export function gated(widgetId: string, route: RouteDefinition): RouteDefinition {
  return {
    ...route,
    description: `${route.description ? `${route.description} ` : ''}Widget '${widgetId}': licence per its widget.json (403 LICENSE_REQUIRED when a paid widget's trial has ended without a key).`,
    async handler(context) {
      const widget = (context.scope.registries as Registries).widgets.get(widgetId);
      if (widget) {
        const state = await (context.scope.dashboardLicense as LicenseService).state(widget);
        if (!state.allowed) throw new LicenseRequiredError(widgetId, state.trialEndsAt);
      }
      return route.handler(context);
    },
  };
}


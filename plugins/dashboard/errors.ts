import { defineError } from '../../kernel/sdk.js';

export class LicenseRequiredError extends defineError(
  'LICENSE_REQUIRED',
  403,
  'A paid dashboard widget after its 14-day trial needs a valid licence key (CMS_LICENSE_KEY or the LICENSE_KEY setting).',
  (widgetId: string, trialEndsAt: string) => ({
    message: `The widget '${widgetId}' needs a licence key: the trial ended ${trialEndsAt}`,
    extra: { widgetId },
  }),
) {}

export class UnknownWidgetError extends defineError(
  'UNKNOWN_WIDGET',
  404,
  'No dashboard widget with this id is registered.',
  (widgetId: string) => `No dashboard widget '${widgetId}'`,
) {}

export class LayoutNeedsUserError extends defineError(
  'LAYOUT_NEEDS_USER',
  403,
  'Dashboard layouts are stored per user account; API keys and tokens have none.',
  'A dashboard layout belongs to a signed-in user account',
) {}

import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('LICENSE_REQUIRED', 403, 'A paid dashboard widget after its 14-day trial needs a valid licence key (CMS_LICENSE_KEY or the LICENSE_KEY setting).');
export class LicenseRequiredError extends AppError {
  constructor(widgetId: string, trialEndsAt: string) {
    super('LICENSE_REQUIRED', 403, `The widget '${widgetId}' needs a licence key: the trial ended ${trialEndsAt}`, { extra: { widgetId } });
  }
}

defineErrorCode('UNKNOWN_WIDGET', 404, 'No dashboard widget with this id is registered.');
export class UnknownWidgetError extends AppError {
  constructor(widgetId: string) {
    super('UNKNOWN_WIDGET', 404, `No dashboard widget '${widgetId}'`);
  }
}

defineErrorCode('LAYOUT_NEEDS_USER', 403, 'Dashboard layouts are stored per user account; API keys and tokens have none.');
export class LayoutNeedsUserError extends AppError {
  constructor() {
    super('LAYOUT_NEEDS_USER', 403, 'A dashboard layout belongs to a signed-in user account');
  }
}

import { AppError, defineErrorCode } from '../../kernel/errors.js';

defineErrorCode('THEME_NOT_FOUND', 404, 'No theme with this id in your tenant, or (get-current-theme, admin-theme reset) no active theme.');
export class ThemeNotFoundError extends AppError {
  constructor(message = 'No active theme') {
    super('THEME_NOT_FOUND', 404, message);
  }
}

defineErrorCode('THEME_SETTING_LOCKED', 409, "The active theme locks this setting (lockedSettings); a user's preferences.theme cannot override it.");
export class ThemeSettingLockedError extends AppError {
  constructor(preference: string, lock: string) {
    super('THEME_SETTING_LOCKED', 409, `The theme locks '${lock}': preferences.theme.${preference} cannot be changed`, { extra: { setting: preference } });
  }
}

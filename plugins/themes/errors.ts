import { defineError } from '../../kernel/sdk.js';

export class ThemeNotFoundError extends defineError(
  'THEME_NOT_FOUND',
  404,
  'No theme with this id in your tenant, or (get-current-theme, admin-theme reset) no active theme.',
  (message = 'No active theme') => message,
) {}

export class ThemeSettingLockedError extends defineError(
  'THEME_SETTING_LOCKED',
  409,
  "The active theme locks this setting (lockedSettings); a user's preferences.theme cannot override it.",
  (preference: string, lock: string) => ({ message: `The theme locks '${lock}': preferences.theme.${preference} cannot be changed`, extra: { setting: preference } }),
) {}

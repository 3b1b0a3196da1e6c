import { ValidationError } from '../../kernel/sdk.js';
import { ThemeSettingLockedError } from './errors.js';
import { buildConfig, cssVariables, readConfig, type Branding, type EffectiveSettings } from './theme-config.js';
import { PREFERENCE_LOCKS, userThemePreferences, type UserThemePreferences } from './theme-schemas.js';
import { storedAdminTheme, type ThemesService } from './themes-service.js';

/** What the admin UI reads to apply the theme: GET /api/theme/effective. */
export interface EffectiveTheme {
  themeId: string | null;
  name: string | null;
  settings: EffectiveSettings;
  preferences: UserThemePreferences;
  locked: string[];
  cssVariables: Record<string, string>;
  customCss: string;
  /** The theme's public branding; the route fills siteName from the SITE_NAME setting when the theme has none. */
  branding: Branding;
}

/** The stored preferences.theme of a user, keeping only valid keys (stale or hand-edited values are dropped). */
export function storedPreferences(preferencesJson: string | null | undefined): UserThemePreferences {
  let theme: unknown;
  try {
    theme = (JSON.parse(preferencesJson ?? '{}') as { theme?: unknown }).theme;
  } catch {
    return {};
  }
  if (!theme || typeof theme !== 'object') return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(theme)) {
    const one = userThemePreferences.safeParse({ [key]: value });
    if (one.success) Object.assign(out, one.data);
  }
  return out as UserThemePreferences;
}

/**
 * Per-user theme preferences (container key `themePreferences`, called by the auth plugin on
 * PUT /api/user/update-user-attributes): keys and values are validated, and a locked setting of the
 * tenant's active theme cannot be overridden (null, "follow the theme", is always allowed).
 */
export class ThemePreferences {
  constructor(private readonly themes: ThemesService) {}

  async validate(tenantId: string, input: unknown): Promise<UserThemePreferences> {
    const parsed = userThemePreferences.safeParse(input);
    if (!parsed.success) {
      throw new ValidationError('Invalid preferences.theme', parsed.error.issues.map((i) => ({
        path: ['body', 'preferences', 'theme', ...i.path.map(String)].join('.'), message: i.message,
      })));
    }
    const row = await this.themes.active(tenantId);
    if (row) {
      const locks = readConfig(row.config).adminTheme.lockedSettings;
      for (const [key, value] of Object.entries(parsed.data)) {
        const lock = PREFERENCE_LOCKS[key as keyof UserThemePreferences];
        if (value !== null && value !== undefined && locks[lock]) throw new ThemeSettingLockedError(key, lock);
      }
    }
    return parsed.data;
  }

  /** The active theme merged with the user's preferences; a locked setting always takes the theme's value. */
  async effective(tenantId: string, preferencesJson: string | null | undefined): Promise<EffectiveTheme> {
    const row = await this.themes.active(tenantId);
    const config = row ? readConfig(row.config) : buildConfig({});
    const admin = row ? storedAdminTheme(row, config) : { ...config.adminTheme };
    const prefs = storedPreferences(preferencesJson);
    const locks = admin.lockedSettings;
    const pick = <T>(lock: keyof typeof locks, pref: T | null | undefined, theme: T): T => (locks[lock] || pref === null || pref === undefined ? theme : pref);
    const settings: EffectiveSettings = {
      density: pick('density', prefs.density, admin.density),
      variant: pick('variant', prefs.cardStyle, admin.variant),
      reducedMotion: pick('reducedMotion', prefs.reducedMotion, admin.reducedMotion),
      highContrast: pick('highContrast', prefs.highContrast, admin.highContrast),
      layoutState: locks.layoutState || !prefs.layoutRegions ? admin.layoutState : { ...admin.layoutState, ...prefs.layoutRegions },
      features: admin.features,
    };
    return {
      themeId: row?.id ?? null,
      name: row?.name ?? null,
      settings,
      preferences: prefs,
      locked: Object.entries(locks).filter(([, v]) => v).map(([k]) => k),
      cssVariables: cssVariables(config, settings),
      customCss: admin.customCss,
      branding: { ...config.branding },
    };
  }
}

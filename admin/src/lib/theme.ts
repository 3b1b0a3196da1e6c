// The active admin theme, applied as CSS variables on <html>. Source: GET /api/theme/effective
// (the themes plugin): {themeId, name, settings: {density, variant, reducedMotion, highContrast,
// features}, preferences, locked, cssVariables: {"--color-primary-600": "#…", …}, customCss}.
// styles/base.css maps the theme's variables (palette shades, --density-scale, --card-shadow, …) onto
// the app's own; when the endpoint is missing (404, plugin disabled) or fails, its defaults apply.
import { remote } from './remote';
import { branding } from './branding.svelte';

export interface ThemeState {
  name: string | null;
  density: 'compact' | 'cozy' | 'spacious';
  variant: 'flat' | 'bordered' | 'elevated';
  reducedMotion: boolean;
  highContrast: boolean;
}

const DENSITIES = ['compact', 'cozy', 'spacious'];
const VARIANTS = ['flat', 'bordered', 'elevated'];
let applied: string[] = [];

export const DEFAULT_THEME: ThemeState = { name: null, density: 'cozy', variant: 'bordered', reducedMotion: false, highContrast: false };

/** Applies an effective-theme answer; unknown or missing fields keep the defaults. */
export function applyTheme(effective: Record<string, any> | null): ThemeState {
  const root = document.documentElement;
  for (const name of applied) root.style.removeProperty(name);
  applied = [];
  const vars = (effective?.cssVariables ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(vars)) {
    if (!/^--[a-zA-Z0-9-]+$/.test(name) || (typeof value !== 'string' && typeof value !== 'number')) continue;
    root.style.setProperty(name, String(value));
    applied.push(name);
  }
  // settings are the theme merged with the user's preferences (locks applied by the server).
  const prefs = (effective?.settings ?? {}) as Record<string, any>;
  const state: ThemeState = {
    name: typeof effective?.name === 'string' ? effective.name : null,
    density: DENSITIES.includes(prefs.density) ? prefs.density : DEFAULT_THEME.density,
    variant: VARIANTS.includes(prefs.variant) ? prefs.variant : DEFAULT_THEME.variant,
    reducedMotion: Boolean(prefs.reducedMotion),
    highContrast: Boolean(prefs.highContrast),
  };
  root.dataset.density = state.density;
  root.dataset.variant = state.variant;
  root.toggleAttribute('data-reduced-motion', state.reducedMotion);
  root.toggleAttribute('data-high-contrast', state.highContrast);
  let style = document.getElementById('cms-custom-css') as HTMLStyleElement | null;
  const css = typeof effective?.customCss === 'string' ? effective.customCss : '';
  if (css) {
    if (!style) {
      style = document.createElement('style');
      style.id = 'cms-custom-css';
      document.head.append(style);
    }
    style.textContent = css;
  } else style?.remove();
  return state;
}

/** Loads and applies the effective theme; never throws (defaults on any failure). */
export async function loadTheme(): Promise<ThemeState> {
  try {
    const effective = await remote('GET /api/theme/effective');
    // Signed in: the site's name (theme branding, else the SITE_NAME setting from the setup wizard).
    const b = effective?.branding;
    if (b?.siteName) branding.siteName = b.siteName;
    if (b?.logoUrl) branding.logoUrl = b.logoUrl;
    return applyTheme(effective);
  } catch {
    return applyTheme(null);
  }
}

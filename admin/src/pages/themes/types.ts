// Shapes of the themes plugin's answers (plugins/themes/routes.ts), from the generated route types.
import type { ApiSchemas, RouteResponse } from '../../lib/remote';

export type ThemeSummary = ApiSchemas['ThemeSummary'];
/** The admin theme's settings as the theme editor edits them (what the server stores, without its bookkeeping). */
export type AdminTheme = Omit<ApiSchemas['StoredAdminTheme'], 'presetSource' | 'updatedAt'>;
export type ImportWarning = ApiSchemas['ThemeImportWarning'];
export type Preset = RouteResponse<'GET /api/theme/presets'>[number];

export const DENSITIES = [['compact', 'Compact'], ['cozy', 'Cozy'], ['spacious', 'Spacious']] as const;
export const VARIANTS = [['flat', 'Flat'], ['bordered', 'Bordered'], ['elevated', 'Elevated']] as const;
export const FEATURES: Record<string, string> = {
  stickyActionBar: 'Sticky action bar', collapsibleSidebar: 'Collapsible sidebar', brandedLogin: 'Branded sign-in page', layoutRegions: 'Layout regions',
};
export const LOCKS: Record<string, string> = {
  density: 'Density', variant: 'Card style', reducedMotion: 'Reduced motion', highContrast: 'High contrast', layoutState: 'Layout',
};

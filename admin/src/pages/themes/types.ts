// Shapes of the themes plugin's answers (plugins/themes/routes.ts), from the generated route types.
import type { ApiSchemas, RouteResponse } from '../../lib/remote';

export type ThemeSummary = ApiSchemas['ThemeSummary'];
/** The admin theme's settings as the theme editor edits them (what the server stores, without its bookkeeping). */
export type AdminTheme = Omit<ApiSchemas['StoredAdminTheme'], 'presetSource' | 'updatedAt'>;
export type ImportWarning = ApiSchemas['ThemeImportWarning'];
export type Preset = RouteResponse<'GET /api/theme/presets'>[number];

// Their labels are in the catalogue: account.appearance.density.<value>, account.appearance.cardStyle.<value>,
// themes.feature.<key>, themes.lock.<key>.
export const DENSITIES = ['compact', 'cozy', 'spacious'] as const;
export const VARIANTS = ['flat', 'bordered', 'elevated'] as const;
export const FEATURES = ['stickyActionBar', 'collapsibleSidebar', 'brandedLogin', 'layoutRegions'];
export const LOCKS = ['density', 'variant', 'reducedMotion', 'highContrast', 'layoutState'];

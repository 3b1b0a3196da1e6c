/**
 * The themes plugin's public surface (type-only): declares its container keys, so `scope.themes`,
 * `scope.themePreferences` and `scope.themePresets` are typed in route handlers.
 */
import type { BundledPreset } from './presets.js';
import type { ThemePreferences } from './theme-preferences.js';
import type { ThemesService } from './themes-service.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    themes: ThemesService;
    themePreferences: ThemePreferences;
    /** The bundled presets, read on first call. */
    themePresets: () => BundledPreset[];
  }
}

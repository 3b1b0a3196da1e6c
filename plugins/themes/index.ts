import { asFunction, asValue } from 'awilix';
import type { Sequelize } from 'sequelize';
import type { CacheService } from '../../kernel/cache/cache-service.js';
import { definePlugin } from '../../kernel/index.js';
import type { Logger } from '../../kernel/logger.js';
import { THEME_MIGRATIONS } from './migrations.js';
import { ThemeRecord } from './models/theme-record.js';
import { loadBundledPresets, type BundledPreset } from './presets.js';
import { themeRoutes } from './routes.js';
import { ThemePreferences } from './theme-preferences.js';
import { ThemesService, type TenantResolver } from './themes-service.js';

/** A container key that may be absent (the cache before SETUP, another plugin's service). */
function optional<T>(cradle: Record<string, unknown>, key: string): T | null {
  try {
    return (cradle[key] as T | undefined) ?? null;
  } catch {
    return null;
  }
}

export default definePlugin({
  register({ container, routes, migrations, models }) {
    models.add(ThemeRecord);
    for (const m of THEME_MIGRATIONS) migrations.add(m);
    let presets: BundledPreset[] | null = null;
    const bundled = () => (presets ??= loadBundledPresets());
    container.register('themePresets', asValue(bundled));
    // Singletons: setup's seed step and the auth plugin's preference check use them outside requests.
    container.register(
      'themes',
      asFunction((cradle: Record<string, unknown>) => new ThemesService(
        cradle.sequelize as Sequelize,
        () => optional<CacheService>(cradle, 'cache'),
        cradle.logger as Logger,
        () => optional<TenantResolver>(cradle, 'tenants'),
        bundled,
      )).singleton(),
    );
    container.register('themePreferences', asFunction((cradle: { themes: ThemesService }) => new ThemePreferences(cradle.themes)).singleton());
    for (const route of themeRoutes) routes.add(route);
  },
});

import { asFunction, asValue } from 'awilix';
import { definePlugin, optional, type ContainerServices } from '../../kernel/sdk.js';
import { THEME_MIGRATIONS } from './migrations.js';
import { ThemeRecord } from './models/theme-record.js';
import { loadBundledPresets, type BundledPreset } from './presets.js';
import { themeRoutes } from './routes.js';
import { ThemePreferences } from './theme-preferences.js';
import { ThemesService } from './themes-service.js';

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
      asFunction((cradle: ContainerServices) => new ThemesService(
        cradle.sequelize,
        () => optional(cradle, 'cache') ?? null,
        cradle.logger,
        () => optional(cradle, 'tenants') ?? null,
        bundled,
      )).singleton(),
    );
    container.register('themePreferences', asFunction((cradle: { themes: ThemesService }) => new ThemePreferences(cradle.themes)).singleton());
    for (const route of themeRoutes) routes.add(route);
  },
});

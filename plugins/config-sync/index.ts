import { asFunction } from 'awilix';
import { definePlugin, type ContainerServices } from '../../kernel/sdk.js';
import { configCommand } from './config-command.js';
import { ConfigSyncService } from './config-sync-service.js';
import { configDomain } from './domain.js';
import { CONFIG_SYNC_MIGRATIONS } from './migrations.js';
import { buildAdapters } from './resources.js';
import { configRoutes } from './routes.js';
import './public.js';

/**
 * Configuration promotion: the `config` data-operation domain and the /api/config routes (plus the
 * deprecated status aliases /api/config_sync and /api/config-sync).
 */
export default definePlugin(() => {
  let cradle: (ContainerServices & Record<string, any>) | null = null;
  let service: ConfigSyncService | null = null;
  const cradleOf = () => {
    if (!cradle) throw new Error('config-sync is used before its plugin booted');
    return cradle;
  };
  return {
    register({ container, routes, registries, migrations }) {
      for (const m of CONFIG_SYNC_MIGRATIONS) migrations.add(m);
      container.register(
        'configSync',
        asFunction((c: ContainerServices & Record<string, any>) => {
          cradle ??= c;
          return (service ??= new ConfigSyncService(c.config.dataPath, buildAdapters(cradleOf), () => c.sequelize));
        }).singleton(),
      );
      const domain = configDomain(
        () => cradleOf().configSync,
        () =>
          new Set(
            cradleOf()
              .registries.permissions.list()
              .map((p: { name: string }) => p.name),
          ),
      );
      registries.dataDomains.add(domain);
      for (const route of configRoutes) routes.add(route);
      registries.cliCommands.add(configCommand);
    },
    async boot({ container }) {
      cradle = container.cradle;
    },
  };
});

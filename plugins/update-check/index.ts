import { asFunction } from 'awilix';
import type { Sequelize } from 'sequelize';
import { type AuditLog, type KernelState, definePlugin, type Logger, optional, type Registries } from '../../kernel/sdk.js';
import { UPDATE_CHECK_MIGRATIONS } from './migrations.js';
import { REASON_TEXT, staticDisabledReason, updateCheckOptionsSchema } from './options.js';
import { updateCheckRoutes } from './routes.js';
import { UpdateCheckService } from './service.js';
import { ensureSigningKey } from './signing-key.js';
import { UpdateCheckStore } from './state-store.js';

/**
 * The instance side of the update check (README, "Update check"). Boots in the `warmed` phase and
 * only starts a timer there: the first check runs 10-60 s later (CMS_TELEMETRY_INITIAL_DELAY_MS),
 * never inside a request. Nothing runs when CMS_TELEMETRY=false, in CI or in a test run.
 */
export default definePlugin({
  options: updateCheckOptionsSchema,
  register({ container, routes, migrations, config, options }) {
    for (const m of UPDATE_CHECK_MIGRATIONS) migrations.add(m);
    for (const r of updateCheckRoutes) routes.add(r);
    let signingKey: string | null = null;
    const key = () => (signingKey ??= ensureSigningKey(config.dataPath));
    container.register(
      'updateCheck',
      asFunction(
        (cradle: { sequelize: Sequelize; logger: Logger; kernelState: KernelState; audit: AuditLog; registries: Registries }) =>
          new UpdateCheckService({
            config,
            options,
            sequelize: cradle.sequelize,
            logger: cradle.logger.child({ plugin: 'update-check' }),
            kernelState: cradle.kernelState,
            audit: cradle.audit,
            // The registration secret is sealed with ENCRYPTION_KEY (shared by the instances of one
            // database), else with this instance's signing key.
            store: new UpdateCheckStore(cradle.sequelize, () => config.secrets.encryptionKey ?? key()),
            signingKey: key,
            widgetIds: () => cradle.registries.widgets.list().map((w) => w.id),
            setting: async (name) => optional(cradle, 'settings')?.get(name),
          }),
      ).singleton(),
    );
  },

  boot({ container, config, options, logger, onClose }) {
    const service = container.resolve<UpdateCheckService>('updateCheck');
    onClose(() => service.stop());
    const reason = staticDisabledReason(options, config);
    if (reason) {
      logger.info({ reason }, `update check disabled: ${REASON_TEXT[reason]}`);
      return;
    }
    service.start();
  },
});

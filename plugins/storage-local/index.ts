import { definePlugin } from '../../kernel/sdk.js';
import { LocalStorageDriver } from './local-driver.js';
import { localDriverConfig, localOptionsSchema } from './local-options.js';

/**
 * A factory: each kernel has its own driver. The kernel merges the options (MEDIA_FOLDER from the environment,
 * plugins.options, the System Setting MEDIA_FOLDER read before boot; plugin.json `env` and `settings`).
 */
export default definePlugin(() => {
  const driver = new LocalStorageDriver();
  return {
    options: localOptionsSchema,
    register({ config, options, registries }) {
      // The folders are known now unless a System Setting may name them (read before boot).
      driver.configure(localDriverConfig({ options, dataPath: config.dataPath }));
      registries.storageDrivers.add(driver);
    },
    boot({ config, options }) {
      // The folders are created on first use (not here: an instance on remote storage keeps no empty ones).
      driver.configure(localDriverConfig({ options, dataPath: config.dataPath }));
    },
  };
});

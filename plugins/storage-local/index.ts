import { definePlugin } from '../../kernel/sdk.js';
import { LocalStorageDriver } from './local-driver.js';
import { localDriverConfig, parseLocalOptions, type LocalOptions } from './local-options.js';
import { readSettings } from '../../kernel/storage/read-settings.js';

/** A factory: each kernel has its own driver and parsed options. */
export default definePlugin(() => {
  const driver = new LocalStorageDriver();
  let parsed: LocalOptions;
  return {
    register({ config, options, envOptions, registries }) {
      parsed = parseLocalOptions(options);
      // The folders are known now unless a System Setting may name them (read in boot).
      driver.configure(localDriverConfig({ env: envOptions, options: parsed, settings: {}, dataPath: config.dataPath }));
      registries.storageDrivers.add(driver);
    },
    async boot({ config, container, logger, envOptions }) {
      const settings = await readSettings(container.cradle, ['MEDIA_FOLDER'], logger);
      // The folders are created on first use (not here: an instance on remote storage keeps no empty ones).
      driver.configure(localDriverConfig({ env: envOptions, options: parsed, settings, dataPath: config.dataPath }));
    },
  };
});

import { join } from 'node:path';
import { definePlugin } from '../../kernel/sdk.js';
import { ImageCdnDriver } from './cdn-driver.js';
import { cdnConfig, cdnOptionsSchema } from './cdn-options.js';

/**
 * A factory: each kernel has its own driver. The kernel merges the options (environment over plugins.options
 * over the System Settings read before boot; plugin.json `env` and `settings`).
 */
export default definePlugin(() => {
  const driver = new ImageCdnDriver();
  return {
    options: cdnOptionsSchema,
    register({ registries }) {
      registries.storageDrivers.add(driver);
    },
    boot({ config, options }) {
      driver.configure(cdnConfig(options, join(config.dataPath, 'tmp')));
    },
  };
});

import { definePlugin } from '../../kernel/sdk.js';
import { S3StorageDriver } from './s3-driver.js';
import { s3Config, s3OptionsSchema } from './s3-options.js';

/**
 * A factory: each kernel has its own drivers. The kernel merges the options (environment over plugins.options
 * over the System Settings read before boot; plugin.json `env` and `settings`); a bad file option or variable
 * stops the boot naming it, a setting that does not fit is left out with a warning.
 */
export default definePlugin(() => {
  const drivers = [new S3StorageDriver('object_store'), new S3StorageDriver('object_store_edge')];
  return {
    options: s3OptionsSchema,
    register({ registries }) {
      for (const driver of drivers) registries.storageDrivers.add(driver);
    },
    boot({ options }) {
      const resolved = s3Config(options);
      for (const driver of drivers) driver.configure(resolved);
    },
    close() {
      for (const driver of drivers) driver.close();
    },
  };
});

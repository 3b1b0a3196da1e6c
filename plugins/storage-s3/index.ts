import { definePlugin } from '../../kernel/sdk.js';
import { readSettings } from '../../kernel/storage/read-settings.js';
import { S3StorageDriver } from './s3-driver.js';
import { envConnection, parseS3Options, s3Config, S3_SETTING_KEYS, settingsConnection, type S3Options } from './s3-options.js';

/** A factory: each kernel has its own drivers and parsed options. */
export default definePlugin(() => {
  const drivers = [new S3StorageDriver('object_store'), new S3StorageDriver('object_store_edge')];
  let options: S3Options;
  let fromEnv: ReturnType<typeof envConnection>;
  return {
    register({ options: raw, envOptions, envSources, registries }) {
      options = parseS3Options(raw);
      // A bad environment value stops the boot now, naming the variable.
      fromEnv = envConnection(envOptions, envSources);
      for (const driver of drivers) registries.storageDrivers.add(driver);
    },
    async boot({ container, logger }) {
      const { connection: fromSettings, invalid } = settingsConnection(await readSettings(container.cradle, S3_SETTING_KEYS, logger));
      if (invalid.length) logger.warn({ settings: invalid }, 'ignoring media storage settings with invalid values');
      const resolved = s3Config(fromEnv, options, fromSettings);
      for (const driver of drivers) driver.configure(resolved);
    },
    close() {
      for (const driver of drivers) driver.close();
    },
  };
});

import { definePlugin } from '../../kernel/index.js';
import { readSettings } from '../../kernel/storage/read-settings.js';
import { S3StorageDriver } from './s3-driver.js';
import { envConnection, parseS3Options, s3Config, S3_SETTING_KEYS, settingsConnection, type S3Options } from './s3-options.js';

/** Per kernel (several may share a process in tests). */
const own = new WeakMap<object, { drivers: S3StorageDriver[]; options: S3Options }>();

export default definePlugin({
  register({ config, options, registries }) {
    const parsed = parseS3Options(options);
    // A bad environment value stops the boot now, naming the variable.
    envConnection(process.env);
    const drivers = [new S3StorageDriver('object_store'), new S3StorageDriver('object_store_edge')];
    for (const driver of drivers) registries.storageDrivers.add(driver);
    own.set(config, { drivers, options: parsed });
  },
  async boot({ config, container, logger }) {
    const { drivers, options } = own.get(config)!;
    const { connection: fromSettings, invalid } = settingsConnection(await readSettings(container.cradle, S3_SETTING_KEYS, logger));
    if (invalid.length) logger.warn({ settings: invalid }, 'ignoring media storage settings with invalid values');
    const resolved = s3Config(envConnection(process.env), options, fromSettings);
    for (const driver of drivers) driver.configure(resolved);
  },
  close({ config }) {
    for (const driver of own.get(config)?.drivers ?? []) driver.close();
    own.delete(config);
  },
});

import { definePlugin } from '../../kernel/index.js';
import { LocalStorageDriver } from './local-driver.js';
import { localDriverConfig, parseLocalOptions, type LocalOptions } from './local-options.js';
import { readSettings } from '../../kernel/storage/read-settings.js';

/** Per kernel (several may share a process in tests): the driver and its parsed options. */
const drivers = new WeakMap<object, { driver: LocalStorageDriver; options: LocalOptions }>();

export default definePlugin({
  register({ config, options, registries }) {
    const parsed = parseLocalOptions(options);
    const driver = new LocalStorageDriver();
    // The folders are known now unless a System Setting may name them (read in boot).
    driver.configure(localDriverConfig({ env: process.env, options: parsed, settings: {}, dataPath: config.dataPath }));
    registries.storageDrivers.add(driver);
    drivers.set(config, { driver, options: parsed });
  },
  async boot({ config, container, logger }) {
    const own = drivers.get(config)!;
    const settings = await readSettings(container.cradle, ['MEDIA_FOLDER'], logger);
    // The folders are created on first use (not here: an instance on remote storage keeps no empty ones).
    own.driver.configure(localDriverConfig({ env: process.env, options: own.options, settings, dataPath: config.dataPath }));
  },
  close({ config }) {
    drivers.delete(config);
  },
});

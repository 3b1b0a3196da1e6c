import { join } from 'node:path';
import { definePlugin } from '../../kernel/index.js';
import { ImageCdnDriver } from './cdn-driver.js';
import { cdnConfig, CDN_SETTING_KEYS, envAccount, parseCdnOptions, settingsAccount, type CdnOptions } from './cdn-options.js';
import { readSettings } from '../../kernel/storage/read-settings.js';

/** Per kernel (several may share a process in tests). */
const own = new WeakMap<object, { driver: ImageCdnDriver; options: CdnOptions }>();

export default definePlugin({
  register({ config, options, registries }) {
    const parsed = parseCdnOptions(options);
    // A bad environment value stops the boot now, naming the variable.
    envAccount(process.env);
    const driver = new ImageCdnDriver();
    registries.storageDrivers.add(driver);
    own.set(config, { driver, options: parsed });
  },
  async boot({ config, container, logger }) {
    const { driver, options } = own.get(config)!;
    const { account: fromSettings, invalid } = settingsAccount(await readSettings(container.cradle, CDN_SETTING_KEYS, logger));
    if (invalid.length) logger.warn({ settings: invalid }, 'ignoring media storage settings with invalid values');
    driver.configure(cdnConfig(envAccount(process.env), options, fromSettings, join(config.dataPath, 'tmp')));
  },
  close({ config }) {
    own.delete(config);
  },
});

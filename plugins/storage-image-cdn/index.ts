import { join } from 'node:path';
import { definePlugin } from '../../kernel/sdk.js';
import { ImageCdnDriver } from './cdn-driver.js';
import { cdnConfig, CDN_SETTING_KEYS, envAccount, parseCdnOptions, settingsAccount, type CdnOptions } from './cdn-options.js';
import { readSettings } from '../../kernel/storage/read-settings.js';

/** A factory: each kernel has its own driver and parsed options. */
export default definePlugin(() => {
  const driver = new ImageCdnDriver();
  let options: CdnOptions;
  let fromEnv: ReturnType<typeof envAccount>;
  return {
    register({ options: raw, envOptions, envSources, registries }) {
      options = parseCdnOptions(raw);
      // A bad environment value stops the boot now, naming the variable.
      fromEnv = envAccount(envOptions, envSources);
      registries.storageDrivers.add(driver);
    },
    async boot({ config, container, logger }) {
      const { account: fromSettings, invalid } = settingsAccount(await readSettings(container.cradle, CDN_SETTING_KEYS, logger));
      if (invalid.length) logger.warn({ settings: invalid }, 'ignoring media storage settings with invalid values');
      driver.configure(cdnConfig(fromEnv, options, fromSettings, join(config.dataPath, 'tmp')));
    },
  };
});

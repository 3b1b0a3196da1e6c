import { z } from 'zod';
import { definePlugin, optional, type Logger } from '../../kernel/sdk.js';
import { asValue } from 'awilix';
import { MaintenanceFlags, MESSAGE_SETTING } from './maintenance-flags.js';
import { maintenanceGate, maintenanceMiddleware } from './maintenance-middleware.js';
import './public.js';

/** plugins.options.maintenance */
const optionsSchema = z.strictObject({
  /** The Retry-After header (and `retryAfterSeconds`) of the 503 answers. */
  retryAfterSeconds: z.number().int().min(1).max(86400).default(300),
  /** Backstop re-read of the setting (for writes that bypass the settings service: config sync, restore); 0 = never. */
  refreshSeconds: z.number().int().min(0).max(3600).default(30),
});

/** A factory: each kernel has its own flags (tests run several kernels in one process). */
export default definePlugin(() => {
  let flags: MaintenanceFlags | null = null;
  let log: Logger | null = null;
  let o: z.infer<typeof optionsSchema>;
  return {
    options: optionsSchema,
    register({ registries, options, container, logger }) {
      o = options;
      registries.middleware.add({
        id: 'maintenance-mode',
        // After identity: administrators pass; the tenant of the caller decides which flag counts.
        stage: 'afterIdentity',
        handler: maintenanceMiddleware(() => flags, o.retryAfterSeconds, logger),
      });
      log = logger;
      // WebSocket upgrades (the GraphQL plugin) ask the same question through the container.
      container.register(
        'maintenance',
        asValue(
          maintenanceGate(
            () => flags,
            o.retryAfterSeconds,
            () => log,
          ),
        ),
      );
    },
    async boot({ container, logger, onClose, follow }) {
      // This plugin's own setting (the settings registry of the setup plugin, when it is enabled).
      optional(container.cradle, 'settingsCatalogue')?.declare('maintenance', {
        key: MESSAGE_SETTING,
        type: 'text',
        default: null,
        nullable: true,
        maxLength: 500,
        group: 'maintenance',
        label: 'Message for visitors',
        description:
          'Shown on the maintenance page instead of the standard sentence while maintenance mode is on (empty: the standard sentence)',
      });
      // The settings store belongs to the setup plugin; without it there is no setting and maintenance stays off.
      const booted = new MaintenanceFlags(follow, () => optional(container.cradle, 'settings'), logger, o.refreshSeconds);
      await booted.ready();
      flags = booted;
      onClose(() => {
        flags = null;
      });
    },
  };
});

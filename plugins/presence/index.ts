import { definePlugin, optional, type ContainerServices, type Identity } from '../../kernel/sdk.js';
import { PRESENCE_MIGRATIONS } from './migrations.js';
import { presenceOptionsSchema, type PresenceOptions } from './options.js';
import { PresenceStore } from './presence-store.js';
import { PRESENCE_CHANGED } from './public.js';
import { routes } from './routes.js';

/**
 * Who is editing (docs/features/presence.md): heartbeats of the admin UI's entry page in cms_presence, the editor
 * chosen from the live rows the same way on every instance, stale rows swept once a minute.
 */
export default definePlugin(() => {
  let store: PresenceStore | null = null;
  let options: PresenceOptions | null = null;
  let nameOf: ((identity: Identity) => Promise<string>) | null = null;
  let publish: ((key: { tenantId: string; collection: string; entryId: string }) => void) | null = null;
  const booted = () => {
    if (!store) throw new Error('presence is used before its plugin booted');
    return store;
  };
  return {
    options: presenceOptionsSchema,
    register(ctx) {
      options = ctx.options;
      for (const m of PRESENCE_MIGRATIONS) ctx.migrations.add(m);
      for (const route of routes({
        store: booted,
        nameOf: (identity: Identity) => (nameOf ? nameOf(identity) : Promise.resolve(identity.userId ?? '')),
        async assertVisible(scope, collection, id) {
          await (scope as ContainerServices).content.entries(collection).get(id);
        },
        changed: (key) => publish?.(key),
      }))
        ctx.routes.add(route);
    },
    async boot({ container, every, onClose, logger }) {
      const cradle: ContainerServices = container.cradle;
      store = new PresenceStore(() => cradle.sequelize, options!);
      // The display name: the user's name, else their e-mail address (the auth plugin is optional).
      const users = optional(cradle, 'users');
      nameOf = async (identity) => {
        const user = users && identity.userId ? await users.findById(identity.userId) : null;
        return String(user?.username || user?.email || identity.userId || '');
      };
      publish = (key) =>
        void cradle.events
          .publish(PRESENCE_CHANGED, key)
          .catch((err: unknown) => logger.warn({ err }, 'presence: the change was not announced'));
      const sweeper = every({ name: 'presence: sweeping closed tabs', everyMs: 60_000, run: async () => void (await store!.sweep()) });
      onClose(async () => {
        await sweeper.close();
        store = null;
        publish = null;
        nameOf = null;
      });
    },
  };
});

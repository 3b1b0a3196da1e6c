import { join } from 'node:path';
import { readdir, rm, stat } from 'node:fs/promises';
import { definePlugin, type ContainerServices } from '../../kernel/sdk.js';
import { ChannelSecrets } from './channel-secrets.js';
import { ChannelStore } from './channel-store.js';
import { CONTENT_SYNC_MIGRATIONS } from './migrations.js';
import { contentSyncOptionsSchema } from './options.js';
import { pullDomain } from './pull-domain.js';
import { pushDomain } from './push-domain.js';
import { RemoteClient } from './remote-client.js';
import { remoteRoutes } from './routes-remote.js';
import { syncRoutes } from './routes.js';
import type { SyncDeps } from './sync-deps.js';
import { TransferStore } from './transfer-store.js';
import '../content-packages/public.js';
import '../data-ops/public.js';
import './public.js';

/** Kept packages of plans (incoming/, pushed/) older than this are removed by the pruning. */
const KEPT_MS = 24 * 3600 * 1000;

/**
 * Content sync: channels to remote instances, the `content-sync` (pull) and `content-sync-push`
 * data-operation domains (audit domain content-sync), /api/content-sync, and the remote-facing
 * endpoints a peer calls (/api/content-sync/remote/...).
 */
export default definePlugin(() => {
  let cradle: (ContainerServices & Record<string, any>) | null = null;
  let channels: ChannelStore | null = null;
  let transfers: TransferStore | null = null;
  let prune: (() => Promise<void>) | null = null;
  let pruneIntervalMs = 3600 * 1000;
  return {
    options: contentSyncOptionsSchema,
    register(ctx) {
      const { options } = ctx;
      pruneIntervalMs = options.pruneIntervalMs;
      const root = join(ctx.config.dataPath, 'content-sync');
      const booted = () => {
        if (!cradle) throw new Error('content-sync is used before its plugin booted');
        return cradle;
      };
      const sequelize = () => booted().sequelize;
      const deps: SyncDeps = {
        cradle: booted,
        channels: () => (channels ??= new ChannelStore(sequelize, new ChannelSecrets(sequelize, ctx.config.secrets?.encryptionKey))),
        transfers: () => (transfers ??= new TransferStore(sequelize, root, options)),
        options,
        allowPrivate: ctx.config.outbound.allowPrivate,
        root,
        client: (channel, signal) =>
          new RemoteClient(channel.url, channel.apiKey, { ...options, allowPrivate: ctx.config.outbound.allowPrivate }, signal),
      };
      for (const m of CONTENT_SYNC_MIGRATIONS) ctx.migrations.add(m);
      ctx.registries.dataDomains.add(pullDomain(deps));
      ctx.registries.dataDomains.add(pushDomain(deps));
      for (const route of [...syncRoutes(deps), ...remoteRoutes(deps)]) ctx.routes.add(route);
      prune = async () => {
        await deps.transfers().prune();
        // Packages kept by plans for after their apply (incoming/: pulls, pushed/: pushes).
        for (const dir of ['incoming', 'pushed']) {
          const names = await readdir(join(root, dir)).catch(() => [] as string[]);
          for (const name of names) {
            const file = join(root, dir, name);
            const s = await stat(file).catch(() => null);
            if (s && Date.now() - s.mtimeMs > KEPT_MS) await rm(file, { force: true });
          }
        }
      };
    },
    async boot({ container, every, onClose }) {
      cradle = container.cradle;
      onClose(() => {
        cradle = null;
        channels = null;
        transfers = null;
      });
      // Registered after the onClose above, so it stops before the cradle is let go.
      const pruning = every({ name: 'content-sync: pruning transfers', everyMs: pruneIntervalMs, run: async () => await prune?.() });
      void pruning.runNow(); // in the background: pruning old transfers never delays boot
    },
  };
});

import { join } from 'node:path';
import { asFunction } from 'awilix';
import { z } from 'zod';
import { definePlugin, DIST_ROOT } from '../../kernel/sdk.js';
import { AdminUi } from './admin-ui.js';
import { adminUiRoutes } from './routes.js';
import { UiBuild } from './ui-build.js';

const optionsSchema = z.object({
  /** Folder of the Vite build (default: <dist>/admin-ui, where `npm run build` puts it). */
  buildDir: z.string().min(1).optional(),
});

/** A factory: each kernel has its own build, read at boot. */
export default definePlugin(() => {
  let build: UiBuild | null = null;
  return {
    options: optionsSchema,
    register({ container, routes }) {
      container.register('adminUi', asFunction(() => new AdminUi(() => build)).singleton());
      for (const route of adminUiRoutes) routes.add(route);
    },
    async boot({ options, logger }) {
      const dir = options.buildDir ?? join(DIST_ROOT, 'admin-ui');
      build = new UiBuild(dir);
      if (!build.available) logger.warn({ dir }, 'the admin UI is not built (run npm run build); /admin answers 503 with instructions');
      else logger.info({ dir, build: build.fingerprint() }, 'admin UI loaded');
    },
    close() {
      build = null;
    },
  };
});

import { join } from 'node:path';
import { asFunction } from 'awilix';
import { z } from 'zod';
import { definePlugin, DIST_ROOT, optional } from '../../kernel/sdk.js';
import { AdminUi } from './admin-ui.js';
import { adminUiRoutes } from './routes.js';
import { UiBuild } from './ui-build.js';

const optionsSchema = z.object({
  /** Folder of the Vite build (default: <dist>/admin-ui, where `npm run build` puts it). */
  buildDir: z.string().min(1).optional(),
});

/** The origins of the collections' live preview addresses (content plugin, when present), for the pages' frame-src. */
function previewOrigins(cradle: object): string[] {
  const collections = optional(cradle, 'collections');
  if (!collections) return [];
  const origins = new Set<string>();
  for (const c of collections.list()) {
    if (!c.previewUrl) continue;
    try {
      origins.add(new URL(c.previewUrl.replace(/\{[a-z]+\}/g, 'x')).origin);
    } catch {
      // not an address (checked when it was set): nothing to allow
    }
  }
  return [...origins].sort();
}

/** A factory: each kernel has its own build, read at boot. */
export default definePlugin(() => {
  let build: UiBuild | null = null;
  return {
    options: optionsSchema,
    register({ container, routes }) {
      container.register(
        'adminUi',
        asFunction(
          (cradle: object) =>
            new AdminUi(
              () => build,
              () => previewOrigins(cradle),
            ),
        ).singleton(),
      );
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

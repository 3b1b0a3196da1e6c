import { asFunction } from 'awilix';
import { join } from 'node:path';
import { definePlugin, type ContainerServices } from '../../kernel/sdk.js';
import { exportPart } from './export-part.js';
import { importPart } from './import-part.js';
import { ContentLedger } from './ledger.js';
import { contentPackagesOptionsSchema } from './options.js';
import { CONTENT_PACKAGE_MIGRATIONS } from './migrations.js';
import type { PartShared } from './parts.js';
import type { ContentPackagesService } from './public.js';
import './public.js';

/**
 * Content packages: the `content-export` and `content-import` data-operation domains (audit domain
 * `content-package`), /api/content-export and /api/content-import, and the `contentPackages` service
 * the content-sync plugin builds on.
 */
export default definePlugin(() => {
  let cradle: (ContainerServices & Record<string, any>) | null = null;
  let ledger: ContentLedger | null = null;
  const exporter = exportPart();
  const importer = importPart();
  let shared: PartShared | null = null;
  return {
    options: contentPackagesOptionsSchema,
    register(ctx) {
      shared = {
        cradle: () => {
          if (!cradle) throw new Error('content-packages is used before its plugin booted');
          return cradle;
        },
        ledger: () => (ledger ??= new ContentLedger(shared!.cradle().sequelize)),
        root: join(ctx.config.dataPath, 'packages'),
      };
      for (const m of CONTENT_PACKAGE_MIGRATIONS) ctx.migrations.add(m);
      exporter.register(ctx, shared);
      importer.register(ctx, shared);
      const s = shared;
      ctx.container.register(
        'contentPackages',
        asFunction((c: ContainerServices & Record<string, any>): ContentPackagesService => {
          cradle ??= c;
          return {
            installationId: () => s.ledger().installationId(),
            recordBases: (tenantId, peer, items) => s.ledger().record(tenantId, peer, items),
            ...exporter.service(s),
            ...importer.service(s),
          };
        }).singleton(),
      );
    },
    async boot(ctx) {
      cradle = ctx.container.cradle;
      await exporter.boot?.(ctx, shared!);
      await importer.boot?.(ctx, shared!);
      ctx.onClose(() => {
        cradle = null;
        ledger = null;
      });
    },
  };
});

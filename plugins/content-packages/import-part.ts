/**
 * The import side of the plugin: the `content-import` domain, /api/content-import routes, the upload
 * store (pruned after 24 hours) and its share of the `contentPackages` service (receive, importDomain).
 */
import type { DataDomainDefinition } from '../data-ops/public.js';
import { optional } from '../../kernel/sdk.js';
import { importDomain } from './import-domain.js';
import type { ImportOptions } from './import-options.js';
import { importRoutes } from './import-routes.js';
import { ImportUploads } from './import-uploads.js';
import type { ImportSideService, PackagesPart, PartShared } from './parts.js';

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export function importPart(): PackagesPart<ImportSideService> {
  let uploads: ImportUploads | null = null;
  let domain: DataDomainDefinition<unknown> | null = null;
  let options: ImportOptions | null = null;
  const uploadsOf = (shared: PartShared) => (uploads ??= new ImportUploads(shared.root, options!, () => shared.cradle().collections));
  return {
    register(ctx, shared) {
      options = ctx.options;
      const store = uploadsOf(shared);
      domain = importDomain({
        uploads: store,
        sequelize: () => shared.cradle().sequelize,
        collections: () => shared.cradle().collections,
        components: () => optional(shared.cradle(), 'components'),
        entries: () => shared.cradle().entries,
        ledger: () => shared.ledger(),
        media: () => optional(shared.cradle(), 'media'),
        mediaStorage: () => optional(shared.cradle(), 'mediaStorage'),
        maxEntries: options.importMaxPackageEntries,
      }) as DataDomainDefinition<unknown>;
      ctx.registries.dataDomains.add(domain);
      for (const route of importRoutes(() => store)) ctx.routes.add(route);
    },
    boot(ctx, shared) {
      const store = uploadsOf(shared);
      const pruning = ctx.every({
        name: 'content import upload pruning',
        everyMs: PRUNE_INTERVAL_MS,
        run: async () => void (await store.prune()),
      });
      void pruning.runNow();
    },
    service: (shared) => ({
      receive: (archivePath, identity) => uploadsOf(shared).receiveFile(archivePath, identity),
      get importDomain() {
        if (!domain) throw new Error('content-packages: the import domain is not registered yet');
        return domain;
      },
    }),
  };
}

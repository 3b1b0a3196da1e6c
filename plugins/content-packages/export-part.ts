/**
 * The export side of content packages (domain `content-export`, routes /api/content-export, the
 * `build` of the contentPackages service). The flow:
 *
 *   POST validate  the selection (collections, includeMedia, status, updatedFrom/To, filters) is checked
 *                  against this instance's collections (export-selection.ts)
 *   POST plan      dataOps.plan -> export-domain.ts: per collection `create collection-file <name>` with its
 *                  entry count, `create media-manifest` with the referenced media records, `create package
 *                  archive`; warnings for references leaving the selection and media without files; the
 *                  answer adds estimatedBytes
 *   POST run       dataOps.apply: the engine locks, then (inline below 500 entities, else as a job) runs the
 *                  steps: PackageWriter (package-writer.ts) streams each collection keyset-paged into
 *                  content/<name>.ndjson + schemas/<name>.json, then media/manifest.ndjson (+ media/files),
 *                  then checksums.sha256, manifest.json and the gzip tar `<data>/packages/exports/<packageId>.svelty-package`
 *                  (package-archive.ts), registered in cms_content_exports with its planId; the engine audits
 *   GET download   ?planId= (inline run) or ?jobId= (the job's payload names the plan) -> the row -> the
 *                  archive, streamed with Range/ETag (409 PACKAGE_NOT_READY while the job runs)
 *   retention      at boot and every hour (export-packages.ts): older than retentionHours, beyond maxPackages
 *
 * build() (content sync) runs the same writer outside the engine, optionally for a peer (baseChecksum).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { optional } from '../../kernel/sdk.js';
import { exportDomain } from './export-domain.js';
import type { ExportOptions } from './export-options.js';
import { ExportPackages } from './export-packages.js';
import { exportRoutes } from './export-routes.js';
import { checkSelection } from './export-selection.js';
import { PackageWriter, type WriterDeps } from './package-writer.js';
import type { ExportSideService, PackagesPart, PartShared } from './parts.js';
import type { ContentPackagesService } from './public.js';

const PRUNE_INTERVAL_MS = 3600_000;

type Build = ContentPackagesService['build'];

/** build() of the service (content sync): the same writer outside the engine, every step in turn, optionally for a peer. */
async function buildPackage(
  deps: WriterDeps,
  prune: () => Promise<unknown>,
  raw: Parameters<Build>[0],
  identity: Parameters<Build>[1],
  buildOptions: NonNullable<Parameters<Build>[2]>,
): ReturnType<Build> {
  const selection = await checkSelection(raw, deps.collections);
  const total = await PackageWriter.count(deps, selection, identity.tenantId);
  const writer = await PackageWriter.open(deps, selection, {
    tenantId: identity.tenantId,
    createdBy: identity.userId,
    peer: buildOptions.peer,
  });
  try {
    let done = 0;
    for (const name of selection.collections) {
      const base = done;
      done += await writer.collection(name, (n) => buildOptions.onProgress?.(base + n, total));
    }
    await writer.media();
    const built = await writer.finish();
    await prune();
    return built;
  } catch (err) {
    await writer.discard().catch(() => undefined);
    throw err;
  }
}

export function exportPart(): PackagesPart<ExportSideService> {
  let options: ExportOptions | null = null;
  let packages: ExportPackages | null = null;
  let pruning: Promise<unknown> | null = null;

  const packagesOf = (shared: PartShared): ExportPackages =>
    (packages ??= new ExportPackages(
      () => shared.cradle().sequelize,
      join(shared.root, 'exports'),
      () => optional(shared.cradle(), 'logger'),
    ));
  const optionsOf = (): ExportOptions => {
    if (!options) throw new Error('content-packages: the export side is not registered yet');
    return options;
  };
  const writerDeps = (shared: PartShared): WriterDeps => {
    const c = shared.cradle();
    return {
      sequelize: c.sequelize,
      collections: c.collections,
      components: optional(c, 'components'),
      mediaStorage: optional(c, 'mediaStorage'),
      pool: c.pool,
      ledger: shared.ledger(),
      packages: packagesOf(shared),
      logger: optional(c, 'logger'),
      pageSize: optionsOf().pageSize,
    };
  };
  /** One retention run at a time. */
  const prune = (shared: PartShared) =>
    (pruning ??= packagesOf(shared)
      .prune(optionsOf())
      .finally(() => {
        pruning = null;
      }));

  return {
    register(ctx, shared) {
      options = ctx.options.export;
      const domain = exportDomain({
        writer: () => writerDeps(shared),
        packages: () => packagesOf(shared),
        built: async () => {
          await prune(shared);
        },
      });
      ctx.registries.dataDomains.add(domain);
      for (const route of exportRoutes({ packages: () => packagesOf(shared), estimateOf: (plan) => domain.estimateOf(plan) }))
        ctx.routes.add(route);
    },

    async boot(ctx, shared) {
      await mkdir(packagesOf(shared).root, { recursive: true });
      // Also waits for a prune started by a build; registered first, so it runs after the timer has stopped.
      ctx.onClose(async () => {
        await pruning?.catch(() => undefined);
      });
      const retention = ctx.every({
        name: 'content package pruning',
        everyMs: PRUNE_INTERVAL_MS,
        run: async () => void (await prune(shared)),
      });
      await retention.runNow();
    },

    service: (shared) => ({
      build: (raw, identity, buildOptions = {}) => buildPackage(writerDeps(shared), () => prune(shared), raw, identity, buildOptions),
    }),
  };
}

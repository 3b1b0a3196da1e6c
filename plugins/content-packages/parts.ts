import type { ContainerServices, PluginBootContext, PluginRegisterContext } from '../../kernel/sdk.js';
import type { ContentLedger } from './ledger.js';
import type { ContentPackagesOptions } from './options.js';
import type { ContentPackagesService } from './public.js';

/** What index.ts hands each side of the plugin (export-part.ts, import-part.ts). */
export interface PartShared {
  /** The booted container's cradle (throws before boot). */
  cradle(): ContainerServices & Record<string, any>;
  ledger(): ContentLedger;
  /** `<CMS_DATA_DIR>/packages`. */
  root: string;
}

/** One side of the plugin: registers its domain, routes, migrations, job handlers; boots its timers. */
export interface PackagesPart<S> {
  register(ctx: PluginRegisterContext<ContentPackagesOptions>, shared: PartShared): void;
  boot?(ctx: PluginBootContext<ContentPackagesOptions>, shared: PartShared): Promise<void> | void;
  /** Its share of the `contentPackages` service. */
  service(shared: PartShared): S;
}

export type ExportSideService = Pick<ContentPackagesService, 'build'>;
export type ImportSideService = Pick<ContentPackagesService, 'receive' | 'importDomain'>;

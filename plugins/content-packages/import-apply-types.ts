/** The dependencies and context of the content-import domain's apply, verify and snapshot. */
import type { Sequelize } from 'sequelize';
import type { CollectionsService, ComponentsService, EntriesService } from '../content/public.js';
import type { DomainContext, StoredPlan } from '../data-ops/public.js';
import type { MediaStorage } from '../media/public.js';
import type { MediaIngest } from './import-apply-media.js';
import type { ImportUploads } from './import-uploads.js';
import type { ContentLedger } from './ledger.js';

export interface ApplyDeps {
  uploads: ImportUploads;
  sequelize: () => Sequelize;
  collections: () => CollectionsService;
  components: () => ComponentsService | undefined;
  entries: () => EntriesService;
  ledger: () => ContentLedger;
  media: () => MediaIngest | undefined;
  mediaStorage: () => MediaStorage | undefined;
}

export type ApplyContext = DomainContext & { plan: StoredPlan };

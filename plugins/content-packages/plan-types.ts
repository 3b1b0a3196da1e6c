/**
 * What the steps of an import plan share: the input, the domain's dependencies, the line of a package's
 * entries file, and the scope of one planning run (the package, the tenant, the notes).
 */
import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import type { Identity } from '../../kernel/sdk.js';
import type { SafetyMode } from '../data-ops/public.js';
import type { CollectionsService, ComponentsService, EntriesService } from '../content/public.js';
import { conflictResolutionsSchema } from './conflicts.js';
import type { ImportUploads } from './import-uploads.js';
import type { ContentLedger } from './ledger.js';
import type { Notes } from './plan-notes.js';
import type { PackageManifest } from './public.js';

export interface ImportInput {
  uploadId: string;
  duplicateStrategy: 'skip' | 'update' | 'copy' | 'fail';
  conflictStrategy: 'skip' | 'source';
  /** Per conflict (`<collection>/<syncId>`): `source` (the package wins) or `target` (kept here); beats conflictStrategy. */
  resolutions?: Record<string, 'source' | 'target'>;
  mappings: Record<string, string>;
}

export const importInputSchema = z
  .object({
    uploadId: z.string().min(1).max(64),
    duplicateStrategy: z.enum(['skip', 'update', 'copy', 'fail']).default('update'),
    conflictStrategy: z.enum(['skip', 'source']).default('skip'),
    resolutions: conflictResolutionsSchema.optional(),
    mappings: z
      .record(z.string().max(200), z.string().min(1).max(64))
      .refine((m) => Object.keys(m).length <= 10_000, 'at most 10000 mappings')
      .default({}),
  })
  .strict();

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
export const entrySchema = z
  .object({
    syncId: z.string().min(1).max(36),
    sourceId: z.string().min(1).max(64),
    slug: z.string().min(1).max(191),
    status: z.enum(['draft', 'published', 'archived']),
    createdAt: z.string().max(64).optional(),
    updatedAt: z.string().max(64).optional(),
    externalIds: z
      .array(z.object({ format: z.string().max(64), entity: z.string().max(64), id: z.string().max(191) }))
      .max(50)
      .optional(),
    fields: z.record(z.string(), z.unknown()),
    locales: z
      .record(
        z.string().min(1).max(35),
        z.object({ status: z.enum(['draft', 'published', 'archived']), fields: z.record(z.string(), z.unknown()) }),
      )
      .optional(),
    localeUpdatedAt: z.record(z.string().min(1).max(35), z.string().max(64)).optional(),
    checksum: hex64,
    baseChecksum: hex64.optional(),
  })
  .passthrough();
export type PackageEntryLine = z.output<typeof entrySchema>;

export interface PlanDeps {
  uploads: ImportUploads;
  sequelize: Sequelize;
  collections: CollectionsService;
  /** The components here (absent: a package with components is blocked). */
  components: ComponentsService | undefined;
  entries: EntriesService;
  ledger: ContentLedger;
  maxEntries: number;
}

/** One planning run: the package (its manifest, root folder and upload folder), who plans, in which mode. */
export interface PlanScope {
  d: PlanDeps;
  input: ImportInput;
  mode: SafetyMode;
  tenantId: string;
  identity: Identity;
  notes: Notes;
  m: PackageManifest;
  /** The package root and the upload folder (staging files go under it). */
  root: string;
  dir: string;
  /** The installation the package comes from. */
  peer: string;
}

import type { z } from 'zod';
import { exportOptionsSchema } from './export-options.js';
import { importOptionsSchema } from './import-options.js';

/**
 * plugins.options['content-packages']: the import side's keys at the top (CONTENT_IMPORT_* variables win),
 * the export side's under `export`; merged and validated by the kernel. Unknown keys are ignored, as before.
 */
export const contentPackagesOptionsSchema = importOptionsSchema.extend({ export: exportOptionsSchema.prefault({}) });
export type ContentPackagesOptions = z.output<typeof contentPackagesOptionsSchema>;

/**
 * Piscina task file of the importers: `prepareImportBatch` (prepare-batch.ts), loaded once sanitize-html
 * can be (see workers/require-esm.ts). Plain data in and out.
 */
import { allowEsmDependencies } from '../../workers/require-esm.js';
import type { PrepareInput, PrepareResult } from './prepare-batch.js';

await allowEsmDependencies();
const batch = await import('./prepare-batch.js');

export function prepareImportBatch(input: PrepareInput): PrepareResult {
  return batch.prepareImportBatch(input);
}

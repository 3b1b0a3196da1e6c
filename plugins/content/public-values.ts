/**
 * The content plugin's worker-safe public surface: how an entry body is read against a collection's
 * schema and how field values are stored, as pure functions and types. No services, no kernel and no
 * database imports (public.ts pulls in the SDK): the importers' pool task (plugins/importers/prepare-batch.ts)
 * loads it in every worker thread and prepares rows exactly as the API checks them.
 */
export { readEntryInput, slugify } from './entry-values.js';
export { fromColumn } from './field-values.js';
export { portableFields } from './component-values.js';
export type { FieldDefinition } from './field-types.js';
export type { PreparedRow } from './prepared-row.js';

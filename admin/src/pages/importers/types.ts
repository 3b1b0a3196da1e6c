// Shapes of the importers plugin's answers (plugins/importers/routes.ts): the ones the routes declare
// come from the generated route types, so a changed route breaks the type check here.
import type { RouteResponse } from '../../lib/remote';

export interface Source {
  format: string;
  label: string;
  extensions: string[];
  description: string;
  features: string[];
}
export type Validation = RouteResponse<'POST /api/importers/validate'>;
export interface FieldMapping {
  entity: string;
  sourceField: string;
  targetField: string | null;
  confidence: number;
  type: string | null;
}
export interface Operation {
  action: 'create' | 'update' | 'skip' | 'scaffold';
  sourceType: string;
  targetCollection: string | null;
  count: number;
  note?: string;
}
export type Plan = RouteResponse<'POST /api/importers/preview'>;
export type SkipReason = 'alreadyImported' | 'unchanged' | 'duplicateInFile' | 'notMapped';
export interface EntityResult {
  imported: number;
  failed: number;
  skipped: number;
  updated: number;
  skipReasons?: Partial<Record<SkipReason, number>>;
}
/** How the results table words each reason a record was skipped. */
export const SKIP_REASONS: Record<SkipReason, string> = {
  alreadyImported: 'imported before (mode add keeps them)',
  unchanged: 'unchanged since the last import',
  duplicateInFile: 'repeated id in this file',
  notMapped: 'not mapped to a collection',
};
export type Job = RouteResponse<'GET /api/importers/jobs/:jobId'>;
/** Per entity: the target collection ('' = automatic), or false to leave it out. */
export type Targets = Record<string, string | false>;

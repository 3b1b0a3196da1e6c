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
  target?: 'new' | 'existing';
  statuses?: StatusPolicy;
  emptyFields?: string[];
  requiredMissing?: string[];
  unmappedFields?: string[];
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
/** Per entity: a new collection (its name), one of the tenant's collections, or left out. */
export interface Target {
  kind: 'new' | 'existing' | 'skip';
  name: string;
}
export type Targets = Record<string, Target>;
export type StatusPolicy = 'keep' | 'draft';
export type RunSummary = RouteResponse<'GET /api/importers/runs'>['runs'][number];
export type RunView = RouteResponse<'GET /api/importers/runs/:jobId'>;

/** 0.83 -> "83%". */
export const pct = (n: number) => `${Math.round(n * 100)}%`;

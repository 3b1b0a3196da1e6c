// Shapes of the importers plugin's answers (plugins/importers/routes.ts): the ones the routes declare
// come from the generated route types, so a changed route breaks the type check here.
import type { RouteResponse } from '../../lib/remote';

export type Source = RouteResponse<'GET /api/importers/sources'>['sources'][number];
export type Validation = RouteResponse<'POST /api/importers/validate'>;
export type Plan = RouteResponse<'POST /api/importers/preview'>;
export type Job = RouteResponse<'GET /api/importers/jobs/:jobId'>;
/** Why records were skipped, as the job's per-entity results count them. */
export type SkipReason = keyof NonNullable<Job['results'][string]['skipReasons']>;
/** Per source language (the preview's `locales`): an existing locale's code, false to leave it out, or a locale to create. */
export type LocaleEdits = Record<string, string | false | { create: true; target?: string }>;
/** Per entity: a new collection (its name), one of the tenant's collections, or left out. */
export interface Target {
  kind: 'new' | 'existing' | 'skip';
  name: string;
}
export type Targets = Record<string, Target>;
export type StatusPolicy = NonNullable<Plan['operations'][number]['statuses']>;
export type RunSummary = RouteResponse<'GET /api/importers/runs'>['runs'][number];
export type RunView = RouteResponse<'GET /api/importers/runs/:jobId'>;

/** 0.83 -> "83%". */
export const pct = (n: number) => `${Math.round(n * 100)}%`;

// Where each kind of record goes: the targets the preview proposes, the user's changes to them, why a
// target cannot be used, and the mappings sent back to POST /api/importers/preview.
import { t } from '../../i18n/index.svelte';
import type { RouteBody } from '../../lib/remote';
import type { Plan, StatusPolicy, Target, Targets } from './types';

export type FieldEdits = Record<string, Record<string, string | null>>;
export type StatusEdits = Record<string, StatusPolicy>;
type Mappings = NonNullable<RouteBody<'POST /api/importers/preview'>['mappings']>;

const tr = t;
// The content plugin's rule for collection names.
const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,47}$/;

/** Why the entity's target cannot be used, in plain words (empty when it can). */
export function targetProblem(entity: string, targets: Targets, autoTargets: Targets, collections: string[]): string {
  const t = targets[entity];
  if (!t || t.kind === 'skip') return '';
  if (t.kind === 'existing') return t.name ? '' : tr('importers.problem.choose');
  if (!COLLECTION_NAME.test(t.name)) return tr('importers.problem.name');
  const samePlan = autoTargets[entity]?.kind === 'existing' && autoTargets[entity]?.name === t.name;
  if (collections.includes(t.name) && !samePlan) return tr('importers.problem.taken', { name: t.name });
  return '';
}

/** The targets a plan proposes; an entity the user chose to leave out stays left out. */
export function targetsFromPlan(plan: Plan, entities: string[], targets: Targets): Targets {
  const fromPlan: Targets = {};
  for (const entity of entities) {
    const op = plan.operations.find((o) => o.sourceType === entity);
    if (targets[entity]?.kind === 'skip') fromPlan[entity] = { ...targets[entity] };
    else if (op?.target === 'existing' && op.targetCollection) fromPlan[entity] = { kind: 'existing', name: op.targetCollection };
    else fromPlan[entity] = { kind: 'new', name: op?.targetCollection ?? targets[entity]?.name ?? '' };
  }
  return fromPlan;
}

/** The target when the user picks another kind: the proposed name for a new one, the same-named collection if there is one. */
export function targetOfKind(entity: string, kind: Target['kind'], plan: Plan | null, autoTargets: Targets, collections: string[]): Target {
  const op = plan?.operations.find((o) => o.sourceType === entity);
  const proposed = autoTargets[entity]?.kind === 'new' ? autoTargets[entity].name : (op?.targetCollection ?? entity);
  const name = kind === 'new' ? proposed : kind === 'existing' ? (collections.includes(entity) ? entity : '') : '';
  return { kind, name };
}

/** The user's targets, field and status choices as the preview's `mappings` (undefined: none). */
export function previewMappings(
  entities: string[],
  targets: Targets,
  fieldEdits: FieldEdits,
  statusEdits: StatusEdits,
): Mappings | undefined {
  const out: Mappings = {};
  // Every target is named: the server never picks an existing collection on its own.
  for (const entity of entities) {
    const t = targets[entity];
    const fields = fieldEdits[entity];
    const statuses = statusEdits[entity];
    if (!t) continue;
    if (t.kind === 'skip') out[entity] = false;
    else
      out[entity] = {
        ...(t.name ? { collection: t.name } : {}),
        ...(fields && Object.keys(fields).length ? { fields } : {}),
        ...(statuses ? { statuses } : {}),
      };
  }
  return Object.keys(out).length ? out : undefined;
}

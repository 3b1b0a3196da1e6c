/** The two sides of a conflict as the plan shows them (content sync lets people choose one). */
import stableStringify from 'safe-stable-stringify';
import type { FieldDefinition, LoadedCollection } from '../content/public.js';
import type { ConflictDetail } from './conflicts.js';
import { valueKey } from './import-target.js';
import type { PackageEntryLine, PlanDeps } from './plan-types.js';

const TITLE_FIELDS = ['title', 'name', 'label', 'headline'];
function titleOf(values: Record<string, unknown>, fields: FieldDefinition[], slug: string): string {
  for (const k of TITLE_FIELDS)
    if (typeof values[k] === 'string' && (values[k] as string).trim()) return (values[k] as string).slice(0, 200);
  const text = fields.find((f) => f.type === 'text' && typeof values[f.name] === 'string' && (values[f.name] as string).trim());
  return text ? String(values[text.name]).slice(0, 200) : slug;
}

const same = (a: unknown, b: unknown): boolean => (stableStringify(a ?? null) ?? '') === (stableStringify(b ?? null) ?? '');

export async function conflictDetail(
  d: PlanDeps,
  c: LoadedCollection,
  tenantId: string,
  targetId: string,
  e: PackageEntryLine,
  incoming: Record<string, unknown>,
  fields: FieldDefinition[],
  wins: boolean,
): Promise<ConflictDetail | undefined> {
  const [current] = await d.entries.readEntries(c, [targetId], tenantId);
  if (!current) return undefined;
  const changedFields: string[] = [];
  if (current.slug !== e.slug) changedFields.push('slug');
  if (current.status !== e.status) changedFields.push('status');
  for (const f of fields) {
    const mine = current[f.name] ?? null;
    const theirs = incoming[f.name] ?? null;
    if (f.type === 'date' ? valueKey(f, mine) !== valueKey(f, theirs) : !same(mine, theirs)) changedFields.push(f.name);
  }
  const updated = (v: unknown) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? new Date(v).toISOString() : null);
  return {
    collection: c.name,
    syncId: e.syncId,
    target: { title: titleOf(current as Record<string, unknown>, fields, current.slug), updatedAt: updated(current.updatedAt) },
    source: { title: titleOf(incoming, fields, e.slug), updatedAt: updated(e.updatedAt) },
    changedFields,
    resolution: wins ? 'source' : 'target',
  };
}

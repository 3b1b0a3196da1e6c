/**
 * An entry's values in target form, for the staging step of an import plan: relations point at the
 * matched (or new) entry here, media at the record found by SHA-256 or carried over by this apply
 * (then `{$media}` stays pending), rich-text `/files/` URLs at the media copy here; every other value is
 * checked against the field's schema.
 */
import { valueSchema, type FieldDefinition } from '../content/public.js';
import { eachNested, holdsComponents, mapComponentValue } from './component-refs.js';
import { isMedia, isRef, type MediaValue, type RefValue } from './entry-codec.js';
import type { MediaPlan } from './import-media.js';
import type { TargetIndex } from './import-target.js';
import type { MatchDecision } from './matching.js';
import type { Notes } from './plan-notes.js';
import type { PlanSchemas } from './plan-schemas.js';
import { filesUrl, richTextFilePaths, rewriteRichTextFiles } from './rich-text-files.js';

/** The target id of a reference `<collection>/<syncId>`: matched, new in this plan, or an entry here (read once per collection). */
export class RefResolver {
  private readonly foreign = new Map<string, Map<string, string>>();

  constructor(
    private readonly decisions: Map<string, MatchDecision>,
    private readonly indexes: Map<string, TargetIndex>,
    private readonly schemas: PlanSchemas,
    private readonly tenantId: string,
    readonly newId: (key: string) => string,
  ) {}

  async target(collection: string, syncId: string): Promise<string | null> {
    const key = `${collection}/${syncId}`;
    const dcs = this.decisions.get(key);
    if (dcs?.kind === 'matched') return dcs.targetId;
    if (dcs?.kind === 'new') return this.newId(key);
    const index = this.indexes.get(collection);
    if (index) return index.bySyncId.get(syncId) ?? null;
    let map = this.foreign.get(collection);
    if (!map) {
      map = new Map();
      const c = this.schemas.here.get(collection);
      if (c) {
        const rows = (await c.model.findAll({
          attributes: ['id', 'sync_id'],
          where: { tenant_id: this.tenantId },
          raw: true,
        })) as unknown as Array<{
          id: string;
          sync_id: string;
        }>;
        for (const r of rows) map.set(r.sync_id, r.id);
      }
      this.foreign.set(collection, map);
    }
    return map.get(syncId) ?? null;
  }
}

/** The values of one entry in target form, and the media it waits for (carried over by the apply). */
export interface TargetValues {
  values: Record<string, unknown>;
  pending: string[];
}

interface ValueScope {
  key: string;
  notes: Notes;
  media: MediaPlan;
  refs: RefResolver;
  out: TargetValues;
}

async function relationValue(s: ValueScope, f: FieldDefinition, v: unknown): Promise<void> {
  if (f.cardinality === 'many') return manyRelationValue(s, f, v);
  if (!isRef(v)) {
    s.notes.block(`${s.key}: field '${f.name}' is not a {$ref} value`);
    return;
  }
  const id = await s.refs.target(v.$ref.collection, v.$ref.syncId);
  if (!id)
    s.notes.warn(
      `field '${f.name}' refers to ${v.$ref.collection}/${v.$ref.syncId}, which is neither here nor in the package: set to null`,
      s.key,
    );
  s.out.values[f.name] = id;
}

/** A many-relation: an array of {$ref}, each pointing here; the ones neither here nor in the package are left out. */
async function manyRelationValue(s: ValueScope, f: FieldDefinition, v: unknown): Promise<void> {
  if (!Array.isArray(v) || !v.every(isRef)) {
    s.notes.block(`${s.key}: field '${f.name}' is not an array of {$ref} values`);
    return;
  }
  const ids: string[] = [];
  for (const ref of v) {
    const id = await s.refs.target(ref.$ref.collection, ref.$ref.syncId);
    if (id) ids.push(id);
    else
      s.notes.warn(
        `field '${f.name}' refers to ${ref.$ref.collection}/${ref.$ref.syncId}, which is neither here nor in the package: left out`,
        s.key,
      );
  }
  s.out.values[f.name] = ids;
}

function mediaValue(s: ValueScope, f: FieldDefinition, v: unknown): void {
  if (!isMedia(v)) {
    s.notes.block(`${s.key}: field '${f.name}' is not a {$media} value`);
    return;
  }
  const r = s.media.resolve(v.$media);
  if (r === 'pending') {
    s.out.values[f.name] = { $media: v.$media };
    s.out.pending.push(v.$media);
  } else {
    if (r === null) s.notes.warn(`field '${f.name}': media ${v.$media} is neither here nor in the package: set to null`, s.key);
    s.out.values[f.name] = r;
  }
}

/**
 * Images (and links) of the rich text that name a media record of the package by its `/files/` URL
 * point at that record's copy here: found by SHA-256 now, or carried over by this apply (then the
 * staged value is {$richtext, $files} and the apply writes the new URLs).
 */
function richTextValue(s: ValueScope, f: FieldDefinition, html: string): void {
  const now = new Map<string, string>();
  const later: Record<string, string> = {};
  for (const path of richTextFilePaths(html)) {
    const sourceId = s.media.sourceOfPath(path);
    if (!sourceId) continue;
    const r = s.media.resolve(sourceId);
    if (r === 'pending') {
      later[path] = sourceId;
      s.out.pending.push(sourceId);
    } else if (r === null)
      s.notes.warn(
        `field '${f.name}': ${filesUrl(path)} is neither here nor in the package (export with includeMedia): kept as it is`,
        s.key,
      );
    else {
      const target = s.media.targetPath(r);
      if (target) now.set(path, filesUrl(target));
    }
  }
  const rewritten = now.size ? rewriteRichTextFiles(html, (path) => now.get(path) ?? null) : html;
  s.out.values[f.name] = Object.keys(later).length ? { $richtext: rewritten, $files: later } : rewritten;
}

/**
 * A component or blocks value: the relation and media values inside it point here as top-level ones do
 * (component-refs.ts), then the whole value is checked against the field's schema (a media record this
 * apply carries over stays `{$media}` until then, checked as its source id).
 */
async function componentValue(s: ValueScope, f: FieldDefinition, v: unknown): Promise<void> {
  const refs = new Map<string, string | null>();
  let shapeError: string | null = null;
  const refsOf = (g: FieldDefinition, x: unknown): RefValue[] | null =>
    g.cardinality === 'many' ? (Array.isArray(x) && x.every(isRef) ? x : null) : isRef(x) ? [x] : null;
  eachNested(f, v, (g, x) => {
    if (g.type === 'media') {
      if (!isMedia(x)) shapeError ??= `a media field '${g.name}' inside it is not a {$media} value`;
      return;
    }
    const list = refsOf(g, x);
    if (!list) shapeError ??= `a relation field '${g.name}' inside it is not a {$ref} value`;
    for (const r of list ?? []) refs.set(`${r.$ref.collection}/${r.$ref.syncId}`, null);
  });
  if (shapeError) return void s.notes.block(`${s.key}: field '${f.name}': ${shapeError}`);
  for (const key of refs.keys()) {
    const at = key.indexOf('/');
    refs.set(key, await s.refs.target(key.slice(0, at), key.slice(at + 1)));
  }
  const targetOf = (r: RefValue) => refs.get(`${r.$ref.collection}/${r.$ref.syncId}`) ?? null;
  let lost = 0;
  const pending: string[] = [];
  const value = mapComponentValue(f, v, (g, x) => {
    if (g.type === 'media') {
      const r = s.media.resolve((x as MediaValue).$media);
      if (r === 'pending') pending.push((x as MediaValue).$media);
      else if (r === null) lost++;
      return r === 'pending' ? x : r;
    }
    const ids = refsOf(g, x)!.map(targetOf);
    lost += ids.filter((id) => !id).length;
    return g.cardinality === 'many' ? ids.filter(Boolean) : ids[0];
  });
  if (lost) s.notes.warn(`field '${f.name}': ${lost} references or media inside it are neither here nor in the package: left out`, s.key);
  const checkable = pending.length ? mapComponentValue(f, value, (g, x) => (isMedia(x) ? x.$media : x)) : value;
  const checked = valueSchema(f).safeParse(checkable);
  if (!checked.success) return void s.notes.block(`${s.key}: field '${f.name}': ${checked.error.issues[0]?.message ?? 'invalid value'}`);
  s.out.values[f.name] = pending.length ? value : checked.data;
  s.out.pending.push(...pending);
}

export async function targetValues(
  key: string,
  fields: FieldDefinition[],
  incoming: Record<string, unknown>,
  scope: { notes: Notes; media: MediaPlan; refs: RefResolver },
): Promise<TargetValues> {
  const s: ValueScope = { key, ...scope, out: { values: {}, pending: [] } };
  for (const f of fields) {
    const v = incoming[f.name];
    if (v === null || v === undefined) s.out.values[f.name] = null;
    else if (f.type === 'relation') await relationValue(s, f, v);
    else if (f.type === 'media') mediaValue(s, f, v);
    else if (holdsComponents(f)) await componentValue(s, f, v);
    else {
      const checked = valueSchema(f).safeParse(v);
      if (!checked.success) s.notes.block(`${key}: field '${f.name}': ${checked.error.issues[0]?.message ?? 'invalid value'}`);
      else if (f.type === 'richtext' && typeof checked.data === 'string') richTextValue(s, f, checked.data);
      else s.out.values[f.name] = checked.data;
    }
  }
  return s.out;
}

/**
 * Identities step of an import plan: the target index of each existing collection, then pass 1 over
 * the package (per entry only its identity: a 100,000-entry package is planned in bounded memory, with
 * shared empty candidate lists and one key per source id unless several entries share it), the
 * external-id candidates (importer links, earlier imports from the same installation), the manual
 * mappings, and one match decision per entry (matching.ts).
 */
import { join } from 'node:path';
import { QueryTypes } from 'sequelize';
import type { FieldDefinition } from '../content/public.js';
import { entryChecksum } from './entry-codec.js';
import { importerLinks, loadTargetIndex, valueKey, type TargetIndex } from './import-target.js';
import { matchIdentities, type IncomingIdentity, type MatchDecision } from './matching.js';
import { readNdjson, safeRelativePath } from './package-reader.js';
import type { PlanSchemas } from './plan-schemas.js';
import { entrySchema, type PackageEntryLine, type PlanScope } from './plan-types.js';

type Incoming = IncomingIdentity;
type ExternalKey = { key: string; format: string; entity: string; id: string };
/** Per collection: the entries' external ids, and the keys of the entries per source id. */
type External = { entryKeys: ExternalKey[]; sourceIds: Map<string, string | string[]> };

/** The candidate list most entries have (none): shared, replaced by an own array on the first candidate. */
const NONE: string[] = [];
function addExternal(it: Incoming, ids: string[]): void {
  if (!ids.length) return;
  if (it.byExternal === NONE) it.byExternal = [];
  it.byExternal.push(...ids);
}
const keysOf = (v: string | string[] | undefined): string[] => (v === undefined ? NONE : typeof v === 'string' ? [v] : v);

export const syncIdOf = (it: Incoming): string => it.key.slice(it.collection.length + 1);

/** The identities of the package's entries and their match decisions. */
export interface PlanIdentities {
  indexes: Map<string, TargetIndex>;
  incoming: Incoming[];
  decisions: Map<string, MatchDecision>;
}

/** Target indexes of the package's existing collections. */
async function targetIndexes(s: PlanScope, p: PlanSchemas): Promise<Map<string, TargetIndex>> {
  const indexes = new Map<string, TargetIndex>();
  const loaded = (name: string) => p.here.get(name);
  for (const c of s.m.collections)
    if (p.here.has(c.name))
      indexes.set(c.name, await loadTargetIndex(p.here.get(c.name)!, s.tenantId, p.commonFields(c.name), s.d.entries, loaded));
  return indexes;
}

/** An entry's identity: its syncId match and natural candidates (slug, unique fields) in the target. */
function identityOf(
  key: string,
  collection: string,
  e: PackageEntryLine,
  index: TargetIndex | undefined,
  uniques: FieldDefinition[],
): Incoming {
  let natural = NONE;
  const bySlug = index?.bySlug.get(e.slug);
  if (bySlug) natural = [bySlug];
  for (const f of uniques) {
    const k = valueKey(f, e.fields[f.name]);
    const id = k === null ? undefined : index!.byUnique.get(f.name)?.get(k);
    if (id) natural = [...natural, id];
  }
  return { key, collection, bySyncId: index?.bySyncId.get(e.syncId) ?? null, byExternal: NONE, byNatural: natural };
}

/** Pass 1: every entry's identity (checked: schema, unique syncId, checksum, package size). */
async function readIdentities(s: PlanScope, p: PlanSchemas, indexes: Map<string, TargetIndex>, byKey: Map<string, Incoming>) {
  const { notes, d } = s;
  const incoming: Incoming[] = [];
  const external = new Map<string, External>();
  let total = 0;
  for (const c of s.m.collections) {
    const index = indexes.get(c.name);
    const uniques = index ? p.commonFields(c.name).filter((f) => f.unique) : [];
    const ext: External = { entryKeys: [], sourceIds: new Map() };
    external.set(c.name, ext);
    if (!safeRelativePath(c.file)) continue;
    for await (const { line, value } of readNdjson(join(s.root, c.file), (n, problem) => notes.block(`${c.file} line ${n}: ${problem}`))) {
      if (++total > d.maxEntries) {
        notes.block(`the package holds more than ${d.maxEntries} entries (CONTENT_IMPORT_MAX_PACKAGE_ENTRIES)`);
        break;
      }
      const parsed = entrySchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        notes.block(`${c.file} line ${line}: ${issue.path.join('.') || '(entry)'}: ${issue.message}`);
        continue;
      }
      const e = parsed.data;
      const key = `${c.name}/${e.syncId}`;
      if (byKey.has(key)) {
        notes.block(`${c.file} line ${line}: syncId ${e.syncId} appears twice`);
        continue;
      }
      if (entryChecksum(e.slug, e.status, e.fields, e.locales) !== e.checksum) {
        notes.block(`${c.file} line ${line}: the entry's checksum does not match its content (${key})`);
        continue;
      }
      const it = identityOf(key, c.name, e, index, uniques);
      incoming.push(it);
      byKey.set(key, it);
      // External ids can only match entries that exist here: none to collect for an empty target.
      if (!index?.rows.size) continue;
      for (const x of e.externalIds ?? []) ext.entryKeys.push({ key, format: x.format, entity: x.entity, id: x.id });
      const had = ext.sourceIds.get(e.sourceId);
      ext.sourceIds.set(e.sourceId, had === undefined ? key : [...keysOf(had), key]);
    }
  }
  return { incoming, external };
}

/** Importer links: an entry's externalIds by (format, entity, id); its sourceId by the id alone. */
async function linkImporterIds(s: PlanScope, name: string, index: TargetIndex, ext: External, byKey: Map<string, Incoming>): Promise<void> {
  const sourceIds = [...ext.sourceIds.keys()];
  const links = await importerLinks(s.d.sequelize, s.tenantId, name, [...new Set([...ext.entryKeys.map((x) => x.id), ...sourceIds])]);
  const byLink = new Map<string, string[]>();
  const byExternalId = new Map<string, string[]>();
  for (const l of links) {
    if (!index.rows.has(l.entry_id)) continue;
    const k = `${l.format}\0${l.entity}\0${l.external_id}`;
    byLink.set(k, [...(byLink.get(k) ?? []), l.entry_id]);
    byExternalId.set(l.external_id, [...(byExternalId.get(l.external_id) ?? []), l.entry_id]);
  }
  for (const x of ext.entryKeys) addExternal(byKey.get(x.key)!, byLink.get(`${x.format}\0${x.entity}\0${x.id}`) ?? NONE);
  for (const [sourceId, keys] of ext.sourceIds)
    for (const id of byExternalId.get(sourceId) ?? NONE) for (const key of keysOf(keys)) addExternal(byKey.get(key)!, [id]);
}

/** Earlier imports from the same source installation (cms_content_import_sources). */
async function linkEarlierImports(
  s: PlanScope,
  name: string,
  index: TargetIndex,
  ext: External,
  byKey: Map<string, Incoming>,
): Promise<void> {
  const sourceIds = [...ext.sourceIds.keys()];
  const { tenantId, peer } = s;
  for (let i = 0; i < sourceIds.length; i += 500) {
    const rows = await s.d.sequelize.query<{ source_id: string; entry_id: string }>(
      'SELECT source_id, entry_id FROM cms_content_import_sources WHERE tenant_id = :tenantId AND source = :peer AND collection = :name AND source_id IN (:ids)',
      { type: QueryTypes.SELECT, replacements: { tenantId, peer, name, ids: sourceIds.slice(i, i + 500) } },
    );
    for (const r of rows)
      if (index.rows.has(r.entry_id)) for (const key of keysOf(ext.sourceIds.get(r.source_id))) addExternal(byKey.get(key)!, [r.entry_id]);
  }
}

/** Manual mappings: each names an entry of the package and an entry of the target (or new / skip). */
function readMappings(s: PlanScope, indexes: Map<string, TargetIndex>, byKey: Map<string, Incoming>): Map<string, string> {
  const mappings = new Map<string, string>();
  for (const [key, value] of Object.entries(s.input.mappings)) {
    const it = byKey.get(key);
    if (!it) {
      s.notes.block(`mapping '${key}' names no entry of the package (use "<collection>/<syncId>")`);
      continue;
    }
    if (value !== 'new' && value !== 'skip' && !indexes.get(it.collection)?.rows.has(value)) {
      s.notes.block(`mapping '${key}': no entry '${value}' in collection '${it.collection}' here`);
      continue;
    }
    mappings.set(key, value);
  }
  return mappings;
}

export async function planIdentities(s: PlanScope, p: PlanSchemas): Promise<PlanIdentities> {
  const indexes = await targetIndexes(s, p);
  const byKey = new Map<string, Incoming>();
  const { incoming, external } = await readIdentities(s, p, indexes, byKey);
  // External ids: importer links of the target, and earlier imports from the same source installation.
  for (const [name, ext] of external) {
    const index = indexes.get(name);
    if (!index) continue;
    await linkImporterIds(s, name, index, ext, byKey);
    await linkEarlierImports(s, name, index, ext, byKey);
  }
  const decisions = matchIdentities(incoming, readMappings(s, indexes, byKey));
  for (const [key, dcs] of decisions) {
    if (dcs.kind !== 'ambiguous') continue;
    s.notes.warn(
      `several candidates: ${dcs.candidates.join(', ')}${dcs.candidates.length === 1 ? ' (also matched by another package entry)' : ''}`,
      key,
    );
    s.notes.block(
      `${key}: ambiguous match (${dcs.candidates.join(', ')}); resolve it with mappings {"${key}": "<entry id>" | "new" | "skip"}`,
    );
  }
  return { indexes, incoming, decisions };
}

/**
 * The links of an import run (runner.ts): after the records are written, each planned reference
 * (a featured image, a comment's parent) is set to the id of the entry the referenced record became.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ImportPlan } from './planner.js';
import type { LocalClient } from '../content/public.js';
import { externalKey, parseEntity } from './prepare-batch.js';
import type { RunInput } from './runner.js';

const messageOf = (err: unknown) => (err as Error)?.message ?? String(err);

/** References resolved per round (one ledger query per side, then one update per entry). */
const LINK_CHUNK = 200;

/** The media file a linked entry stores in its media field (cached by entry id, at most 10,000), or null. */
async function mediaFileOf(content: LocalClient, link: Link, entryId: string, mediaOf: Map<string, string | null>): Promise<string | null> {
  if (!mediaOf.has(entryId)) {
    if (mediaOf.size >= 10_000) mediaOf.clear();
    const entry = (await content
      .entries(link.toCollection)
      .get(entryId)
      .catch(() => null)) as Record<string, unknown> | null;
    const media = entry?.[link.toMediaField!];
    mediaOf.set(entryId, typeof media === 'string' && media ? media : null);
  }
  return mediaOf.get(entryId)!;
}

type Link = NonNullable<ImportPlan['links']>[number];
type Pending = { key: string; refs: string[]; id: string; line?: number };

/** Most references one record's many-relation takes (the content plugin's limit). */
const MAX_MANY = 1000;

/** Most aliases (ImportedEntity.aliases) remembered per run; past it, references to further aliases stay unresolved. */
const MAX_ALIASES = 100_000;
/** Most aliases one record names. */
const MAX_ALIASES_PER_RECORD = 20;

/** Aliases of the records of these entities: `<entity>\0<alias key>` -> the record's key (a first read of the spool). */
async function readAliases(spoolPath: string, entities: Set<string>, warn: (message: string) => void): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!entities.size) return out;
  const lines = createInterface({ input: createReadStream(spoolPath, 'utf8'), crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      if (!text.includes('"aliases":')) continue;
      const e = parseEntity(text);
      if (!e || !entities.has(e.entity) || !Array.isArray(e.aliases)) continue;
      const key = externalKey(e.externalId);
      for (const alias of e.aliases.slice(0, MAX_ALIASES_PER_RECORD)) {
        if (typeof alias !== 'string' || !alias) continue;
        if (out.size >= MAX_ALIASES) {
          warn(`more than ${MAX_ALIASES} translations' own ids: references to the others are not resolved`);
          return out;
        }
        out.set(`${e.entity}\u0000${externalKey(alias)}`, key);
      }
    }
  } finally {
    lines.close();
  }
  return out;
}

/**
 * The source references a record's link field holds: one id, or (a many-relation) a list of them; [] for none. A
 * translation's own id (an alias) is read as its entity's id.
 */
function refsOf(link: Link, value: unknown, aliases: Map<string, string>): string[] {
  const one = (v: unknown) => (typeof v === 'string' || typeof v === 'number') && v !== '' && v !== 0 && v !== '0';
  const key = (v: unknown) => {
    const k = externalKey(String(v));
    return aliases.get(`${link.to}\u0000${k}`) ?? k;
  };
  if (link.as === 'relation' && link.many && Array.isArray(value)) return [...new Set(value.filter(one).map(key))].slice(0, MAX_MANY);
  return one(value) ? [key(value)] : [];
}

/** The value a link stores for one record: an entry id, a media id or an ordered list of entry ids; undefined to leave it. */
async function valueOf(
  input: RunInput,
  link: Link,
  item: Pending,
  refs: Map<string, { entry_id: string }>,
  mediaOf: Map<string, string | null>,
  warn: (message: string, line?: number) => void,
): Promise<string | string[] | undefined> {
  const missing = item.refs.filter((r) => !refs.has(r));
  const many = link.as === 'relation' && link.many;
  if (missing.length)
    warn(
      `${link.entity} ${item.id}: ${link.field} names ${link.to} ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? '...' : ''}, ` +
        (many ? `not imported; left out of ${link.into}` : `which was not imported; ${link.into} left empty`),
      item.line,
    );
  const found = item.refs.filter((r) => refs.has(r)).map((r) => refs.get(r)!.entry_id);
  if (many) return [...new Set(found)];
  if (!found.length) return undefined;
  if (link.as !== 'media') return found[0];
  const media = await mediaFileOf(input.content, link, found[0]!, mediaOf);
  if (!media) warn(`${link.entity} ${item.id}: ${link.to} ${item.refs[0]} has no stored file; ${link.into} left empty`, item.line);
  return media ?? undefined;
}

/**
 * After the records are written: each planned link (a featured image, a comment's parent, a post's categories,
 * tags and author) stores the target's id of the referenced record in its own field (`into`), for the entries this
 * run wrote: for a many-relation the ids in the source's order. A link into another field leaves the source's value
 * as it was. The spool is read again line by line; the ledger gives both entries; each entry is updated on its own
 * (no transaction held across the reads). A reference to a record that was not imported is a warning.
 */
export async function resolveLinks(input: RunInput, warn: (message: string, line?: number) => void): Promise<void> {
  const { plan, store, content } = input;
  const tenantId = input.identity.tenantId;
  const byEntity = new Map<string, Link[]>();
  for (const l of plan.links ?? []) (byEntity.get(l.entity) ?? byEntity.set(l.entity, []).get(l.entity)!).push(l);
  const pending = new Map<Link, Pending[]>();
  const mediaOf = new Map<string, string | null>();
  const aliases = await readAliases(input.spoolPath, new Set((plan.links ?? []).map((l) => l.to)), warn);
  const flush = async (link: Link) => {
    const items = pending.get(link) ?? [];
    pending.set(link, []);
    if (!items.length) return;
    const own = await store.linksFor(
      tenantId,
      plan.format,
      link.entity,
      link.collection,
      items.map((i) => i.key),
    );
    const refs = await store.linksFor(tenantId, plan.format, link.to, link.toCollection, [...new Set(items.flatMap((i) => i.refs))]);
    const entries = content.entries(link.collection);
    for (const item of items) {
      const row = own.get(item.key);
      if (!row || (input.jobId && row.job_id !== input.jobId)) continue;
      const value = await valueOf(input, link, item, refs, mediaOf, warn);
      if (value === undefined) continue;
      try {
        await entries.update(row.entry_id, { [link.into]: value });
      } catch (err) {
        warn(`${link.entity} ${item.id}: ${link.into} not set: ${messageOf(err)}`, item.line);
      }
    }
  };
  const lines = createInterface({ input: createReadStream(input.spoolPath, 'utf8'), crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      if (!text) continue;
      const e = parseEntity(text);
      const links = e ? byEntity.get(e.entity) : undefined;
      if (!e || !links) continue;
      for (const link of links) {
        const value = e.data[link.field];
        const refs = refsOf(link, value, aliases);
        // An empty list is a value too: the many-relation is set to [] (never left null).
        if (!refs.length && !(link.as === 'relation' && link.many && Array.isArray(value))) continue;
        const list = pending.get(link) ?? pending.set(link, []).get(link)!;
        list.push({ key: externalKey(e.externalId), refs, id: e.externalId, ...(e.line ? { line: e.line } : {}) });
        if (list.length >= LINK_CHUNK) await flush(link);
      }
      if (input.shouldStop?.()) return;
    }
  } finally {
    lines.close();
  }
  for (const link of plan.links ?? []) await flush(link);
}

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
async function mediaFileOf(
  content: LocalClient,
  link: NonNullable<ImportPlan['links']>[number],
  entryId: string,
  mediaOf: Map<string, string | null>,
): Promise<string | null> {
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

/**
 * After the records are written: each planned link (a featured image, a comment's parent) stores the target's
 * id of the referenced record in its own field (`into`), for the entries this run wrote. The source's value stays
 * as it was. The spool is read again line by line; the ledger gives both entries; each entry is updated on its own
 * (no transaction held across the reads). A reference to a record that was not imported is a warning.
 */
export async function resolveLinks(input: RunInput, warn: (message: string, line?: number) => void): Promise<void> {
  const { plan, store, content } = input;
  const tenantId = input.identity.tenantId;
  const byEntity = new Map<string, NonNullable<ImportPlan['links']>>();
  for (const l of plan.links ?? []) (byEntity.get(l.entity) ?? byEntity.set(l.entity, []).get(l.entity)!).push(l);
  const pending = new Map<NonNullable<ImportPlan['links']>[number], Array<{ key: string; ref: string; id: string; line?: number }>>();
  const mediaOf = new Map<string, string | null>();
  const flush = async (link: NonNullable<ImportPlan['links']>[number]) => {
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
    const refs = await store.linksFor(tenantId, plan.format, link.to, link.toCollection, [...new Set(items.map((i) => i.ref))]);
    const entries = content.entries(link.collection);
    for (const item of items) {
      const row = own.get(item.key);
      if (!row || (input.jobId && row.job_id !== input.jobId)) continue;
      const target = refs.get(item.ref);
      if (!target) {
        warn(
          `${link.entity} ${item.id}: ${link.field} names ${link.to} ${item.ref}, which was not imported; ${link.into} left empty`,
          item.line,
        );
        continue;
      }
      let value: string | null = target.entry_id;
      if (link.as === 'media') {
        value = await mediaFileOf(content, link, target.entry_id, mediaOf);
        if (!value) {
          warn(`${link.entity} ${item.id}: ${link.to} ${item.ref} has no stored file; ${link.into} left empty`, item.line);
          continue;
        }
      }
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
        if ((typeof value !== 'string' && typeof value !== 'number') || value === '' || value === 0 || value === '0') continue;
        const list = pending.get(link) ?? pending.set(link, []).get(link)!;
        list.push({
          key: externalKey(e.externalId),
          ref: externalKey(String(value)),
          id: e.externalId,
          ...(e.line ? { line: e.line } : {}),
        });
        if (list.length >= LINK_CHUNK) await flush(link);
      }
      if (input.shouldStop?.()) return;
    }
  } finally {
    lines.close();
  }
  for (const link of plan.links ?? []) await flush(link);
}

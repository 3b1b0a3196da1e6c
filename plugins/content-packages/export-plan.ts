/**
 * plan() of the content-export domain: per collection `create collection-file <name>` (count: its
 * selected entries), `create media-manifest media` (count: referenced media records), `create package
 * archive` (count 0; payload.estimatedBytes); warnings for relation fields pointing outside the selection,
 * for media fields in use without includeMedia, and for an empty selection.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { columnName, type LoadedCollection } from '../content/public.js';
import type { DataOperation, PlanDraft } from '../data-ops/public.js';
import { countWhere, fieldsOfType, quote, referencedMediaWhere, selectionWhere } from './export-selection.js';
import type { ExportSelection } from './public.js';

export type ExportPayload =
  { step: 'collection'; name: string; first: boolean } | { step: 'media' } | { step: 'package'; estimatedBytes: number };

/** Bytes per entry line besides its text values (ids, sync id, dates, checksum, JSON syntax), and per field. */
const LINE_BYTES = 320;
const FIELD_BYTES = 24;
const MEDIA_LINE_BYTES = 320;

interface ExportDraft {
  operations: DataOperation[];
  warnings: PlanDraft['warnings'];
  estimatedBytes: number;
  entries: number;
}

type Where = ReturnType<typeof selectionWhere>;

/** Relation fields pointing outside the selection, media fields in use without includeMedia. */
async function collectionWarnings(
  sequelize: Sequelize,
  c: LoadedCollection,
  where: Where,
  selection: ExportSelection,
  draft: ExportDraft,
): Promise<void> {
  const selected = new Set(selection.collections);
  for (const f of fieldsOfType(c, 'relation')) {
    if (selected.has(f.collection!)) continue;
    const n = await countWhere(sequelize, c.table, where, `${quote(sequelize, columnName(f))} IS NOT NULL`);
    if (n)
      draft.warnings.push({
        message: `references leaving the selection: ${c.name}.${f.name} -> ${f.collection}: ${n} ${n === 1 ? 'entry refers' : 'entries refer'} to a collection not in the selection (the references travel as sync ids and resolve on import only where the target already has those entries)`,
        item: `${c.name}.${f.name}`,
      });
  }
  if (selection.includeMedia) return;
  for (const f of fieldsOfType(c, 'media')) {
    const n = await countWhere(sequelize, c.table, where, `${quote(sequelize, columnName(f))} IS NOT NULL`);
    if (n)
      draft.warnings.push({
        message: `no media files included: ${c.name}.${f.name} is set in ${n} ${n === 1 ? 'entry' : 'entries'} and includeMedia is off, so the package has the media records but not the files (an import matches them by sha256)`,
        item: `${c.name}.${f.name}`,
      });
  }
}

/** One collection's file: its selected entries counted, their size estimated, its warnings. */
async function planCollection(
  sequelize: Sequelize,
  c: LoadedCollection,
  first: boolean,
  tenantId: string,
  selection: ExportSelection,
  draft: ExportDraft,
): Promise<void> {
  const where = selectionWhere(sequelize, c, tenantId, selection);
  const texts = c.fields.filter((f) => ['text', 'richtext', 'markdown', 'json', 'select'].includes(f.type));
  const sum = texts.length ? texts.map((f) => `COALESCE(LENGTH(${quote(sequelize, columnName(f))}), 0)`).join(' + ') : '0';
  const [row] = await sequelize.query<{ n: number | string; b: number | string | null }>(
    `SELECT COUNT(*) AS n, SUM(${sum}) AS b FROM ${quote(sequelize, c.table)} WHERE ${where.sql}`,
    { type: QueryTypes.SELECT, replacements: where.values },
  );
  const count = Number(row?.n ?? 0);
  draft.entries += count;
  draft.estimatedBytes += count * (LINE_BYTES + FIELD_BYTES * c.fields.length) + Number(row?.b ?? 0);
  draft.operations.push({
    action: 'create',
    type: 'collection-file',
    target: c.name,
    count,
    payload: { step: 'collection', name: c.name, first } satisfies ExportPayload,
  });
  await collectionWarnings(sequelize, c, where, selection, draft);
}

/** The media records the selected entries refer to (and their files' size with includeMedia). */
async function planMedia(
  sequelize: Sequelize,
  loaded: LoadedCollection[],
  tenantId: string,
  selection: ExportSelection,
  draft: ExportDraft,
): Promise<void> {
  const mediaWhere = referencedMediaWhere(sequelize, loaded, tenantId, selection);
  let media = 0;
  if (mediaWhere) {
    const [row] = await sequelize.query<{ n: number | string; b: number | string | null }>(
      `SELECT COUNT(*) AS n, SUM(${quote(sequelize, 'size')}) AS b FROM ${quote(sequelize, 'media_items')} WHERE ${mediaWhere.sql}`,
      { type: QueryTypes.SELECT, replacements: mediaWhere.values },
    );
    media = Number(row?.n ?? 0);
    draft.estimatedBytes += media * MEDIA_LINE_BYTES + (selection.includeMedia ? Number(row?.b ?? 0) : 0);
  }
  draft.operations.push({
    action: 'create',
    type: 'media-manifest',
    target: selection.includeMedia ? 'media records and files' : 'media records',
    count: media,
    payload: { step: 'media' } satisfies ExportPayload,
  });
}

export async function planExport(
  sequelize: Sequelize,
  loaded: LoadedCollection[],
  tenantId: string,
  selection: ExportSelection,
): Promise<Omit<PlanDraft, 'targetHash'>> {
  const draft: ExportDraft = { operations: [], warnings: [], estimatedBytes: 0, entries: 0 };
  for (const [i, c] of loaded.entries()) await planCollection(sequelize, c, i === 0, tenantId, selection, draft);
  await planMedia(sequelize, loaded, tenantId, selection, draft);
  draft.operations.push({
    action: 'create',
    type: 'package',
    target: 'archive',
    count: 0,
    payload: { step: 'package', estimatedBytes: draft.estimatedBytes } satisfies ExportPayload,
  });
  if (!draft.entries) draft.warnings.push({ message: 'the selection has no entries: the package will hold the schemas only' });
  return { operations: draft.operations, warnings: draft.warnings, blockedReasons: [] };
}

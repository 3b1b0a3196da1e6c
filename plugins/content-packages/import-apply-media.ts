/**
 * The media step of an import apply (outside the transaction): the package's media files carried over
 * through the media plugin, with an undo that removes the records and files it made; and how the
 * entries written after it find those copies (media-map.json, media-urls.json in the staging folder).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { QueryTypes } from 'sequelize';
import type { Identity } from '../../kernel/sdk.js';
import type { FieldDefinition } from '../content/public.js';
import type { Undo } from '../data-ops/public.js';
import { holdsComponents, mapComponentValue } from './component-refs.js';
import { isMedia } from './entry-codec.js';
import type { ApplyContext, ApplyDeps } from './import-apply-types.js';
import type { ImportInput } from './import-plan.js';
import { readStaged, stagingDir, type ImportPayload, type StagedMedia } from './import-staging.js';
import { rewriteRichTextFiles } from './rich-text-files.js';

const MEDIA_MAP = 'media-map.json';
/** Source media id -> the `/files/` URL of its copy made by this apply (rich-text references). */
const MEDIA_URLS = 'media-urls.json';

/** The media plugin's MediaService, as far as the import uses it. */
export interface MediaIngest {
  ingest(
    identity: Identity,
    file: { tempPath: string; originalName: string; size: number },
    input: { folderId: string | null; private: boolean },
  ): Promise<{ _id: string; url?: string }>;
}

/** What this apply's media step made: source media id -> new id, and -> the new `/files/` URL. */
export interface MediaMap {
  ids: Record<string, string>;
  urls: Record<string, string>;
}

export async function mediaMap(dir: string, staging: string): Promise<MediaMap> {
  const read = async (name: string) => {
    try {
      return JSON.parse(await readFile(join(stagingDir(dir, staging), name), 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  };
  return { ids: await read(MEDIA_MAP), urls: await read(MEDIA_URLS) };
}

/**
 * Staged values with media carried over by this apply resolved: `{$media}` to the new id, a rich text
 * staged as `{$richtext, $files: {path: sourceId}}` to its HTML with those `/files/` URLs pointing at the copies.
 */
export function resolved(values: Record<string, unknown>, map: MediaMap, fields: readonly FieldDefinition[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const nested = new Map(fields.filter(holdsComponents).map((f) => [f.name, f]));
  for (const [k, v] of Object.entries(values)) {
    const o = v && typeof v === 'object' ? (v as { $media?: unknown; $richtext?: unknown; $files?: Record<string, string> }) : null;
    const holder = nested.get(k);
    if (holder && v !== null)
      out[k] = mapComponentValue(holder, v, (g, x) => (g.type === 'media' && isMedia(x) ? (map.ids[x.$media] ?? null) : x));
    else if (o && typeof o.$media === 'string') out[k] = map.ids[o.$media] ?? null;
    else if (o && typeof o.$richtext === 'string') {
      const files = o.$files ?? {};
      out[k] = rewriteRichTextFiles(o.$richtext, (path) => (Object.hasOwn(files, path) ? (map.urls[files[path]!] ?? null) : null));
    } else out[k] = v;
  }
  return out;
}

const thumbnailsOf = (metadata: string | null): string[] => {
  try {
    return Object.values((JSON.parse(metadata ?? '{}') as { thumbnails?: Record<string, { path: string }> }).thumbnails ?? {}).map(
      (t) => t.path,
    );
  } catch {
    return [];
  }
};

/** Removes media records (and their files) this apply created. */
async function dropMedia(d: ApplyDeps, ids: string[]): Promise<void> {
  if (!ids.length) return;
  const sequelize = d.sequelize();
  const storage = d.mediaStorage();
  const rows = await sequelize.query<{ path: string; metadata: string | null }>(
    'SELECT path, metadata FROM media_items WHERE id IN (:ids)',
    {
      type: QueryTypes.SELECT,
      replacements: { ids },
    },
  );
  for (const r of rows) {
    for (const path of [r.path, ...thumbnailsOf(r.metadata)]) {
      if (!storage) break;
      await storage.delete(path).catch(() => undefined);
      if (storage.hasTrash) await storage.purge(path).catch(() => undefined);
    }
  }
  await sequelize.query('DELETE FROM media_items WHERE id IN (:ids)', { replacements: { ids } });
}

export async function applyMedia(d: ApplyDeps, p: Extract<ImportPayload, { kind: 'media' }>, ctx: ApplyContext): Promise<Undo> {
  const input = ctx.plan.input as ImportInput;
  const { dir, root } = await d.uploads.load(input.uploadId, ctx.tenantId);
  const media = d.media();
  if (!media) throw new Error('The media plugin is not available: the package media cannot be carried over');
  const list = await readStaged<StagedMedia>(dir, p.staging, p.file);
  const created: string[] = [];
  const map: Record<string, string> = {};
  const urls: Record<string, string> = {};
  try {
    for (const [i, m] of list.entries()) {
      const view = await media.ingest(
        ctx.identity,
        { tempPath: join(root, m.file), originalName: m.filename, size: m.size },
        { folderId: null, private: false },
      );
      created.push(view._id);
      map[m.sourceId] = view._id;
      if (typeof view.url === 'string') urls[m.sourceId] = view.url;
      ctx.progress?.(i + 1, list.length);
    }
    await writeFile(join(stagingDir(dir, p.staging), MEDIA_MAP), JSON.stringify(map));
    await writeFile(join(stagingDir(dir, p.staging), MEDIA_URLS), JSON.stringify(urls));
  } catch (err) {
    await dropMedia(d, created).catch(() => undefined);
    throw err;
  }
  return () => dropMedia(d, created);
}

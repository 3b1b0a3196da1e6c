/**
 * php_cms: Drupal JSON:API documents (a collection, a single resource, or a compound document with
 * `included`), as one `.json` file or a tar archive of several. Streams `data[]`/`included[]`.
 *
 * Entities: `node--<bundle>` -> plural bundle (`articles`, `recipes`, `pages`); `taxonomy_term--<vocab>`
 * -> plural vocabulary (`tags`, `recipe_categories`); `file--file` -> `attachments` (absolute URL in
 * `file.url`); `media--<bundle>` -> `media` (`bundle` field); `user--user` -> `authors` (names only);
 * `comment--*` -> `comments`, `paragraph--*` -> `paragraphs`, `block_content--*` -> `blocks`,
 * `menu_link_content--*` -> `menu_links`. Configuration entities are skipped with one warning.
 * externalId: the resource UUID, the same for every translation; the record's `locale` is its `langcode`
 * (`und` and `zxx`, "not specified" and "not applicable", carry none) and `sourceLocale` marks the original
 * (`default_langcode: true`): the run writes the translations into the same entry, each in its locale.
 * Relationships become relation values (the target UUID, or an array of them); where the targets are in the import
 * too, the run makes them relations (reference-links.ts).
 */
import { join } from 'node:path';
import type { ImportFieldKind, ImportParseInput } from '../importers/public.js';
import type { SpoolWriter } from '../../workers/import/spool-writer.js';
import { extractUpload, isArchiveInput, plainEncoding, maxLineBytesOf } from './task-run.js';
import { walkJson, type JsonPath } from './json-walk.js';
import { plural } from './names.js';
import { detached } from '../../lib/text/detached.js';
import { ReferenceLinks } from './reference-links.js';

interface Resource {
  type?: unknown;
  id?: unknown;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: unknown }>;
  links?: { self?: { href?: string } | string };
}

/** Attributes that are Drupal bookkeeping, not content. */
const DROP_ATTRIBUTE =
  /^(drupal_internal__(?!nid$|tid$|fid$|mid$|uid$).*|revision_.*|default_langcode|content_translation_.*|status|pass|mail|init)$/;
/** Relationships that point at Drupal configuration. */
const DROP_RELATIONSHIP = new Set([
  'node_type',
  'revision_uid',
  'revision_user',
  'vid',
  'bundle',
  'media_type',
  'comment_type',
  'paragraph_type',
]);
/** Drupal's language codes that name no language: "not specified" and "not applicable". */
const NO_LANGUAGE = new Set(['und', 'zxx']);
const COLLAPSED: Record<string, string> = {
  file: 'attachments',
  media: 'media',
  user: 'authors',
  comment: 'comments',
  paragraph: 'paragraphs',
  block_content: 'blocks',
  menu_link_content: 'menu_links',
};

export function drupalEntity(type: string): { entity: string; bundle: string } | null {
  const [entityType, bundle] = type.split('--');
  if (!entityType || !bundle) return null;
  if (entityType === 'node' || entityType === 'taxonomy_term') return { entity: plural(bundle), bundle };
  const collapsed = COLLAPSED[entityType];
  return collapsed ? { entity: collapsed, bundle } : null;
}

const isFormatted = (v: unknown): v is { value?: unknown; processed?: unknown; summary?: unknown; format?: unknown } =>
  !!v && typeof v === 'object' && !Array.isArray(v) && 'value' in v && 'format' in v;

function originOf(res: Resource): string | null {
  const self = typeof res.links?.self === 'string' ? res.links.self : res.links?.self?.href;
  try {
    return self ? new URL(self).origin : null;
  } catch {
    return null;
  }
}

interface DocumentOutcome {
  resources: number;
  /** Resource collection links of an entry-point document (`node--article` ...). */
  indexLinks: string[];
  notJsonApi: boolean;
}

interface Context {
  input: ImportParseInput;
  writer: SpoolWriter;
  seen: Set<string>;
  skippedTypes: Map<string, number>;
  relativeUrls: number;
  /** Where relationship fields point (they become relations when their targets are imported too). */
  references: ReferenceLinks;
}

/** A resource's relationships as field values: ids (a list for a to-many), `media` when they point at files or media. */
function readRelationships(
  res: Resource,
  data: Record<string, unknown>,
  kinds: Record<string, ImportFieldKind>,
  note?: (name: string, many: boolean, types: string[]) => void,
): void {
  for (const [name, rel] of Object.entries(res.relationships ?? {})) {
    if (DROP_RELATIONSHIP.has(name) || !rel || !('data' in rel)) continue;
    const targets = Array.isArray(rel.data) ? rel.data : rel.data ? [rel.data] : [];
    const ids: string[] = [];
    const types: string[] = [];
    let media = false;
    for (const t of targets as Array<{ type?: unknown; id?: unknown }>) {
      if (typeof t?.id !== 'string' || t.id === 'missing' || t.type === 'unknown') continue;
      ids.push(t.id);
      if (typeof t.type === 'string') types.push(t.type);
      if (typeof t.type === 'string' && /^(file|media)--/.test(t.type)) media = true;
    }
    note?.(name, Array.isArray(rel.data), types);
    data[name] = Array.isArray(rel.data) ? ids : (ids[0] ?? null);
    kinds[name] = media ? 'media' : 'relation';
  }
}

/** An attachment's file (its URL made absolute against the resource's origin) and its `url` field. */
function attachmentFile(
  res: Resource,
  attrs: Record<string, unknown>,
  data: Record<string, unknown>,
  ctx: Context,
): { url?: string; filename: string; mimeType?: string } {
  const uri = attrs.uri as { url?: unknown; value?: unknown } | undefined;
  let url = typeof uri?.url === 'string' ? uri.url : null;
  if (url && url.startsWith('/')) {
    const origin = originOf(res);
    if (origin) url = new URL(url, origin).href;
    else ctx.relativeUrls++;
  }
  delete data.uri;
  data.url = url;
  const filename = typeof attrs.filename === 'string' ? attrs.filename : (url?.split('/').pop() ?? String(res.id));
  return {
    filename,
    ...(url && !url.startsWith('/') ? { url } : {}),
    ...(typeof attrs.filemime === 'string' ? { mimeType: attrs.filemime } : {}),
  };
}

async function writeResource(res: Resource, ctx: Context, line: number | undefined): Promise<boolean> {
  const { writer } = ctx;
  if (typeof res?.type !== 'string' || typeof res.id !== 'string') {
    writer.warn('a resource without a string `type` and `id` was skipped', line);
    return false;
  }
  const mapped = drupalEntity(res.type);
  if (!mapped) {
    ctx.skippedTypes.set(res.type, (ctx.skippedTypes.get(res.type) ?? 0) + 1);
    return false;
  }
  const attrs = res.attributes && typeof res.attributes === 'object' ? res.attributes : {};
  const data: Record<string, unknown> = {};
  const kinds: Record<string, ImportFieldKind> = {};
  if (['media', 'paragraphs', 'blocks', 'comments'].includes(mapped.entity)) data.bundle = mapped.bundle;
  for (const [name, value] of Object.entries(attrs)) {
    if (DROP_ATTRIBUTE.test(name)) continue;
    if (name === 'path' && value && typeof value === 'object' && 'alias' in value) {
      data.path = (value as { alias?: unknown }).alias ?? null;
    } else if (isFormatted(value)) {
      data[name] = typeof value.processed === 'string' && value.processed ? value.processed : (value.value ?? null);
      kinds[name] = 'richtext';
      if (typeof value.summary === 'string' && value.summary.trim()) {
        data[`${name}_summary`] = value.summary;
        kinds[`${name}_summary`] = 'richtext';
      }
    } else data[name] = value;
  }
  readRelationships(res, data, kinds, (name, many, types) =>
    ctx.references.note(
      mapped.entity,
      name,
      many,
      types.map((type) => drupalEntity(type)?.entity ?? null),
    ),
  );
  const lang = typeof attrs.langcode === 'string' && !NO_LANGUAGE.has(attrs.langcode) ? attrs.langcode : null;
  // The language is the record's locale, not a field of its own.
  if (lang !== null) delete data.langcode;
  const externalId = res.id;
  const key = `${mapped.entity}\u0000${externalId}\u0000${lang ?? ''}`;
  if (ctx.seen.has(key)) {
    writer.warn(`${res.type} ${externalId}${lang ? ` (${lang})` : ''} appears twice: the later copy was skipped`, line);
    return false;
  }
  let status: 'draft' | 'published' | undefined;
  if (typeof attrs.status === 'boolean') status = attrs.status ? 'published' : 'draft';
  else if (attrs.moderation_state === 'published' || attrs.moderation_state === 'draft') status = attrs.moderation_state;

  const file = mapped.entity === 'attachments' ? attachmentFile(res, attrs, data, ctx) : undefined;
  const written = await writer.write(
    {
      entity: mapped.entity,
      externalId,
      data,
      ...(lang !== null ? { locale: lang, ...(attrs.default_langcode !== false ? { sourceLocale: true } : {}) } : {}),
      ...(status ? { status } : {}),
      ...(file ? { file } : {}),
      ...(line !== undefined ? { line } : {}),
    },
    kinds,
  );
  if (written) ctx.seen.add(detached(key));
  return written;
}

async function parseDocument(path: string, name: string, ctx: Context, encoding?: string): Promise<DocumentOutcome> {
  const outcome: DocumentOutcome = { resources: 0, indexLinks: [], notJsonApi: false };
  const { writer } = ctx;
  const select = (p: JsonPath, token: { name: string }): string | null => {
    if (p.length === 1 && p[0] === 'data' && token.name === 'startObject') return 'resource';
    if (p.length === 2 && (p[0] === 'data' || p[0] === 'included') && typeof p[1] === 'number') return p[0];
    if (p.length === 1 && (p[0] === 'meta' || p[0] === 'links' || p[0] === 'errors')) return p[0];
    return null;
  };
  const walked = await walkJson(path, {
    maxDepth: ctx.input.maxDepth,
    maxTokenBytes: maxLineBytesOf(ctx.input),
    encoding,
    select,
    onTooDeep: (label, p) =>
      writer.warn(
        `${name}: ${label} record nested deeper than ${ctx.input.maxDepth} levels, skipped`,
        typeof p[1] === 'number' ? p[1] + 1 : undefined,
      ),
    onValue: async (label, value, p) => {
      if (label === 'data' || label === 'included' || label === 'resource') {
        const line = label === 'data' ? (p[1] as number) + 1 : undefined;
        if (await writeResource(value as Resource, ctx, line)) outcome.resources++;
      } else if (label === 'meta') {
        const omitted = (value as { omitted?: { links?: Record<string, unknown> } })?.omitted;
        if (omitted) {
          const n = Object.keys(omitted.links ?? {}).filter((k) => k !== 'help').length;
          writer.warn(`${name}: the source left out ${n} resource(s) for lack of access (meta.omitted); they are not in the file`);
        }
      } else if (label === 'links' && value && typeof value === 'object') {
        outcome.indexLinks = Object.keys(value).filter((k) => k.includes('--'));
      } else if (label === 'errors' && Array.isArray(value)) {
        const titles = value
          .map((e) => (e as { title?: unknown; detail?: unknown })?.detail ?? (e as { title?: unknown })?.title)
          .filter(Boolean);
        writer.warn(`${name}: the JSON:API response holds errors instead of data: ${titles.slice(0, 3).join('; ') || 'no detail'}`);
      }
    },
  });
  if (walked.error) writer.warn(`${name}: not valid JSON (${walked.error}); ${outcome.resources} resource(s) read before the error`);
  outcome.notJsonApi = walked.rootKind !== 'object' || (!walked.topKeys.includes('data') && !walked.topKeys.includes('errors'));
  return outcome;
}

export async function parseDrupal(input: ImportParseInput, writer: SpoolWriter): Promise<void> {
  const ctx: Context = { input, writer, seen: new Set(), skippedTypes: new Map(), relativeUrls: 0, references: new ReferenceLinks() };
  const documents: Array<{ path: string; name: string; encoding?: string }> = [];
  if (isArchiveInput(input)) {
    const { dir, archive } = await extractUpload(input, writer);
    for (const f of archive.files.filter((f) => /\.json$/i.test(f)).sort()) documents.push({ path: join(dir, f), name: f });
    if (!documents.length) return writer.block('the archive holds no .json file of JSON:API documents');
  } else documents.push({ path: input.path, name: input.filename, encoding: plainEncoding(input) });

  let total = 0;
  const reasons: string[] = [];
  for (const doc of documents) {
    const outcome = await parseDocument(doc.path, doc.name, ctx, doc.encoding);
    total += outcome.resources;
    if (outcome.resources > 0) continue;
    const reason = outcome.notJsonApi
      ? `${doc.name} is not a JSON:API document (no top-level \`data\`)`
      : outcome.indexLinks.length
        ? `${doc.name} is the JSON:API entry point (links to ${outcome.indexLinks.length} resource collections such as ${outcome.indexLinks.slice(0, 3).join(', ')}), not content: export the collections themselves, e.g. /jsonapi/node/article`
        : `${doc.name} holds no importable resources`;
    if (documents.length === 1) reasons.push(reason);
    else writer.warn(reason);
  }
  if (ctx.skippedTypes.size) {
    const list = [...ctx.skippedTypes].map(([t, n]) => `${n} ${t}`).join(', ');
    writer.warn(`skipped resources that are Drupal configuration, not content: ${list}`);
  }
  writer.links = ctx.references.links();
  if (ctx.relativeUrls)
    writer.warn(`${ctx.relativeUrls} file URL(s) are relative and no site origin is known: their bytes cannot be fetched`);
  if (total === 0) {
    if (reasons.length) for (const r of reasons) writer.block(r);
    else writer.block('no importable Drupal resources were found');
  }
}

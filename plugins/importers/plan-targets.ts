/**
 * Where the plan (planner.ts) puts an entity and its fields: the default target collection of an entity
 * nobody mapped, and the automatic field mapping onto an existing collection (by name, then by synonym).
 */
import { fieldNameFor, SOURCE_FIELD } from './field-names.js';
import type { CollectionInfo } from '../content/public.js';

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const stripPrefix = (s: string) => norm(s).replace(/^(post|wp|field|meta|product|item)/, '');
const SYNONYMS = [
  ['title', 'name', 'posttitle', 'headline', 'subject'],
  ['content', 'body', 'postcontent', 'bodyhtml', 'html', 'text', 'description'],
  ['excerpt', 'summary', 'postexcerpt', 'teaser', 'lead'],
  ['publishedat', 'date', 'postdate', 'postdategmt', 'dategmt', 'pubdate', 'datecreated', 'created', 'publishdate'],
  ['author', 'creator', 'dccreator', 'usercreated'],
  ['image', 'featuredimage', 'thumbnail', 'cover', 'media', 'file'],
  ['url', 'link', 'attachmenturl', 'guid', 'src'],
  ['price', 'variantprice', 'regularprice'],
  ['sku', 'variantsku'],
];

/** The best existing field for a source field, with a confidence (1 same name, 0.9 same valid name, 0.75 similar, 0.6 synonym). */
export function autoMap(
  source: string,
  fields: CollectionInfo['fields'],
  taken: Set<string>,
): { field: CollectionInfo['fields'][number]; confidence: number } | null {
  const free = fields.filter((f) => !taken.has(f.name) && f.name !== SOURCE_FIELD);
  const candidates: Array<[number, (f: (typeof free)[number]) => boolean]> = [
    [1, (f) => f.name === source],
    [0.9, (f) => f.name.toLowerCase() === fieldNameFor(source).toLowerCase()],
    [0.75, (f) => stripPrefix(f.name) === stripPrefix(source) && stripPrefix(source) !== ''],
    [
      0.6,
      (f) =>
        SYNONYMS.some((group) => group.includes(norm(f.name)) && (group.includes(norm(source)) || group.includes(stripPrefix(source)))),
    ],
  ];
  for (const [confidence, test] of candidates) {
    const field = free.find(test);
    if (field) return { field, confidence };
  }
  return null;
}

/** A collection an earlier import made (it has the scaffolded `_source_import` field). */
export const madeByImport = (c: CollectionInfo) => c.fields.some((f) => f.name === SOURCE_FIELD);

/**
 * The default target of an entity nobody mapped: never an existing collection the user made. The entity's
 * own name (`rows`: the file's base name) when no collection has it; else `<name>_<source>` (`articles_strapi`,
 * `posts_wordpress`), then `<name>_<source>_2`, ... An existing candidate is taken only when an earlier import
 * of the same format made it and put this entity's records in it (a re-import goes where the first one went).
 */
export function defaultTarget(
  base: string,
  sourceTag: string,
  collections: CollectionInfo[],
  linked: Record<string, number> | undefined,
  taken: Set<string>,
): { name: string; existing?: CollectionInfo } {
  const suffix = `_${sourceTag}`;
  const candidates = [base, `${base.slice(0, 48 - suffix.length)}${suffix}`];
  for (let n = 2; n <= 20; n++) candidates.push(`${base.slice(0, 48 - suffix.length - String(n).length - 1)}${suffix}_${n}`);
  for (const name of candidates) {
    const existing = collections.find((c) => c.name === name);
    if (!existing) {
      if (taken.has(name)) continue;
      return { name };
    }
    if (madeByImport(existing) && (linked?.[name] ?? 0) > 0) return { name, existing };
  }
  return { name: candidates[candidates.length - 1]! };
}

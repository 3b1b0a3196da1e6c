/**
 * Main thread: how sure each tabular format is about an upload, judged from its profile (structure:
 * header columns, JSON record keys, NDJSON line keys). The extension only nudges.
 */
import type { ImportProfile, ImportSample } from '../importers/public.js';

const ext = (sample: ImportSample) => /\.([a-z0-9]+)$/i.exec(sample.filename)?.[1]?.toLowerCase() ?? '';
const lower = (names: string[] | undefined) => new Set((names ?? []).map((n) => n.replace(/\s+/g, ' ').trim().toLowerCase()));
const hasAll = (set: Set<string>, names: string[]) => names.every((n) => set.has(n));
const countOf = (set: Set<string>, names: string[]) => names.filter((n) => set.has(n)).length;

const HOSTED_CSV = [
  'handle',
  'title',
  'body (html)',
  'variant sku',
  'variant price',
  'option1 value',
  'image src',
  'variant inventory qty',
];
const PLUGIN_CSV = [
  'type',
  'sku',
  'name',
  'regular price',
  'sale price',
  'parent',
  'in stock?',
  'visibility in catalog',
  'short description',
];
const HOSTED_JSON = ['handle', 'body_html', 'variants', 'product_type', 'vendor'];

export function hostedShopScore(profile: ImportProfile): number {
  if (profile.kind === 'delimited') {
    const header = lower(profile.delimited?.header);
    if (!hasAll(header, ['handle', 'title'])) return 0;
    const n = countOf(header, HOSTED_CSV);
    return n >= 5 ? 0.95 : n >= 4 ? 0.85 : 0.3;
  }
  if (profile.kind === 'json' && profile.json) {
    const keys = lower(profile.json.recordKeys);
    if (profile.json.recordsPath !== 'products' && profile.json.recordsPath !== '') return 0;
    const n = countOf(keys, HOSTED_JSON);
    if (!keys.has('variants') || n < 3) return 0;
    return profile.json.recordsPath === 'products' ? 0.95 : 0.8;
  }
  return 0;
}

export function pluginShopScore(profile: ImportProfile): number {
  if (profile.kind !== 'delimited') return 0;
  const header = lower(profile.delimited?.header);
  if (!hasAll(header, ['type', 'sku', 'name'])) return 0;
  const n = countOf(header, PLUGIN_CSV);
  return header.has('regular price') && n >= 5 ? 0.95 : header.has('regular price') ? 0.85 : 0.3;
}

/** Generic CSV: any delimited text with a header; shop exports score higher with their own formats. */
export function detectCsv(sample: ImportSample): number {
  const { profile } = sample;
  const e = ext(sample);
  if (profile.kind === 'delimited' && profile.delimited) {
    const shop = Math.max(hostedShopScore(profile), pluginShopScore(profile));
    const base = e === 'csv' || e === 'tsv' ? 0.9 : e === 'txt' || e === '' ? 0.8 : 0.6;
    return shop >= 0.85 ? Math.min(base, 0.8) : base;
  }
  // Text without a delimiter could be a one-column CSV: only the extension says so, which is weak evidence.
  if (profile.kind === 'unknown' && (e === 'csv' || e === 'tsv')) return 0.3;
  return 0;
}

function isSelfCmsKeys(keys: string[]): boolean {
  const set = new Set(keys);
  return set.has('collection') && (set.has('data') || set.has('_id') || set.has('syncId'));
}

/** Generic JSON: moderate, so platform formats win when they recognise their structure. */
export function detectJson(sample: ImportSample): number {
  const { profile } = sample;
  const e = ext(sample);
  const isJson = e === 'json';
  if (profile.kind === 'json' && profile.json) {
    const j = profile.json;
    if (j.root === 'scalar') return 0;
    if (j.recordsPath !== null && j.recordCount > 0) return isJson ? 0.6 : 0.55;
    if (j.root === 'object') return isJson ? 0.5 : 0.45;
    return 0.3;
  }
  if (profile.kind === 'ndjson' && profile.ndjson) {
    if (isSelfCmsKeys(profile.ndjson.recordKeys)) return 0.3;
    return e === 'json' ? 0.55 : e === 'ndjson' || e === 'jsonl' ? 0.45 : 0.35;
  }
  return 0;
}

/** This project's content-package entry file: NDJSON lines with `collection` and `data`/`_id`. */
export function detectSelfCms(sample: ImportSample): number {
  const { profile } = sample;
  const e = ext(sample);
  if (profile.kind === 'ndjson' && profile.ndjson) {
    if (isSelfCmsKeys(profile.ndjson.recordKeys)) return e === 'ndjson' ? 0.95 : 0.9;
    return e === 'ndjson' ? 0.3 : 0;
  }
  // a one-line file profiles as a JSON object
  if (profile.kind === 'json' && profile.json?.root === 'object' && isSelfCmsKeys(profile.json.topKeys)) return e === 'ndjson' ? 0.85 : 0.4;
  return 0;
}

export const detectShopHosted = (sample: ImportSample): number => hostedShopScore(sample.profile);
export const detectShopPlugin = (sample: ImportSample): number => pluginShopScore(sample.profile);

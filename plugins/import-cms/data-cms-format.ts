/** data_cms: Directus item exports (bare array or `{data: [...]}`) and schema snapshots, alone or in a tar archive. */
import type { ImportFormat, ImportSample } from '../importers/public.js';
import { archiveEntries, nudge, type JsonProfile } from './detect-util.js';
import { judgeJsonApi } from './php-cms-format.js';

const SYSTEM_KEYS = ['date_created', 'user_created', 'date_updated', 'user_updated'];

/** How much one JSON document looks like a Directus item export or schema snapshot, from its structure. */
export function judgeDirectus(json: JsonProfile | undefined): number {
  if (!json) return 0;
  if (json.root === 'object' && json.topKeys.includes('directus') && json.topKeys.includes('collections')) {
    const extra = ['fields', 'relations', 'version'].filter((k) => json.topKeys.includes(k)).length;
    return 0.86 + extra * 0.03;
  }
  const items = json.recordsPath === '' || (json.recordsPath === 'data' && json.root === 'object' && !json.topKeys.includes('jsonapi'));
  if (!items) return 0;
  const system = SYSTEM_KEYS.filter((k) => json.recordKeys.includes(k)).length;
  if (system === 0) return 0;
  let score = system >= 2 ? 0.88 : 0.8;
  if (json.recordKeys.includes('id')) score += 0.02;
  if (json.recordKeys.includes('status') || json.recordKeys.includes('sort')) score += 0.02;
  return score;
}

export function detectDataCms(sample: ImportSample): number {
  const { profile, filename } = sample;
  if (profile.container === 'tar') {
    // A Strapi export (entities/*.jsonl) or a Drupal JSON:API document among the members is not Directus.
    if (archiveEntries(sample).some((e) => /(^|\/)entities\/[^/]+\.jsonl$/.test(e))) return 0;
    const docs = Object.values(profile.archive?.jsonEntries ?? {});
    if (docs.some((j) => judgeJsonApi(j ?? undefined) > 0)) return 0;
    return nudge(Math.max(0, ...docs.map((j) => judgeDirectus(j ?? undefined))) * 0.97, filename, /\.(tar\.gz|tgz|tar)$/i);
  }
  if (profile.kind !== 'json') return 0;
  return nudge(judgeDirectus(profile.json), filename, /\.json$/i);
}

export const dataCmsFormat: Omit<ImportFormat, 'taskFile'> = {
  format: 'data_cms',
  label: 'Directus export (JSON)',
  description:
    'Directus item exports (a JSON array of items as /utils/export writes it, or the {data: [...]} response) and schema snapshots: items keyed by id, status mapped to draft/published, UUID foreign keys as relations; a snapshot imports no items but types the collections for scaffolding. A .tar.gz of several item exports (and a snapshot) imports every collection, with the references between them as relations.',
  // The interface spec lists `.json` for data_cms; an archive is recognised by its content (detect above).
  extensions: ['.json'],
  features: ['entries', 'relations', 'status', 'translations', 'schema', 'archives'],
  detect: detectDataCms,
  parseTask: 'parseDataCms',
};

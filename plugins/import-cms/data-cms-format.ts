/** data_cms: Directus item exports (bare array or `{data: [...]}`) and schema snapshots. */
import type { ImportFormat, ImportSample } from '../importers/public.js';
import { nudge } from './detect-util.js';

const SYSTEM_KEYS = ['date_created', 'user_created', 'date_updated', 'user_updated'];

export function detectDataCms(sample: ImportSample): number {
  const { profile, filename } = sample;
  const json = profile.json;
  if (profile.container !== 'plain' || profile.kind !== 'json' || !json) return 0;
  if (json.root === 'object' && json.topKeys.includes('directus') && json.topKeys.includes('collections')) {
    const extra = ['fields', 'relations', 'version'].filter((k) => json.topKeys.includes(k)).length;
    return nudge(0.86 + extra * 0.03, filename, /\.json$/i);
  }
  const items = json.recordsPath === '' || (json.recordsPath === 'data' && json.root === 'object' && !json.topKeys.includes('jsonapi'));
  if (!items) return 0;
  const system = SYSTEM_KEYS.filter((k) => json.recordKeys.includes(k)).length;
  if (system === 0) return 0;
  let score = system >= 2 ? 0.88 : 0.8;
  if (json.recordKeys.includes('id')) score += 0.02;
  if (json.recordKeys.includes('status') || json.recordKeys.includes('sort')) score += 0.02;
  return nudge(score, filename, /\.json$/i);
}

export const dataCmsFormat: Omit<ImportFormat, 'taskFile'> = {
  format: 'data_cms',
  label: 'Directus export (JSON)',
  description:
    'Directus item exports (a JSON array of items as /utils/export writes it, or the {data: [...]} response) and schema snapshots: items keyed by id, status mapped to draft/published, UUID foreign keys as relations; a snapshot imports no items but types the collections for scaffolding.',
  extensions: ['.json'],
  features: ['entries', 'relations', 'status', 'translations', 'schema'],
  detect: detectDataCms,
  parseTask: 'parseDataCms',
};

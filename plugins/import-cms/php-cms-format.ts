/** php_cms: Drupal JSON:API documents, one `.json` file or a tar archive of several. */
import type { ImportFormat, ImportSample } from '../importers/public.js';
import { archiveEntries, nudge, type JsonProfile } from './detect-util.js';

const DRUPAL_TYPE = /^[a-z][a-z0-9_]*--[a-z0-9_]+$/;

/** How much a JSON document looks like Drupal JSON:API, from its structure. */
export function judgeJsonApi(json: JsonProfile | undefined): number {
  if (!json || json.root !== 'object') return 0;
  const drupalTypes = json.recordTypes.filter((t) => DRUPAL_TYPE.test(t)).length;
  const resources =
    json.recordKeys.includes('type') &&
    json.recordKeys.includes('id') &&
    (json.recordKeys.includes('attributes') || json.recordKeys.includes('relationships'));
  if (json.topKeys.includes('jsonapi')) {
    // The entry point (`data: []`) is JSON:API too: parse explains it holds no content.
    if (drupalTypes > 0 || json.recordCount === 0) return 0.95;
    return resources ? 0.8 : 0.6;
  }
  if (drupalTypes > 0 && resources && json.topKeys.includes('data')) return 0.9;
  return drupalTypes > 0 && resources ? 0.7 : 0;
}

export function detectPhpCms(sample: ImportSample): number {
  const { profile } = sample;
  if (profile.container === 'tar') {
    const entries = archiveEntries(sample);
    if (entries.some((e) => /(^|\/)entities\/[^/]+\.jsonl$/.test(e))) return 0;
    const scores = Object.values(profile.archive?.jsonEntries ?? {}).map((j) => judgeJsonApi(j ?? undefined));
    return nudge(Math.max(0, ...scores) * 0.97, sample.filename, /\.(tar\.gz|tgz|tar)$/i);
  }
  if (profile.kind !== 'json') return 0;
  return nudge(judgeJsonApi(profile.json), sample.filename, /\.json$/i);
}

export const phpCmsFormat: Omit<ImportFormat, 'taskFile'> = {
  format: 'php_cms',
  label: 'Drupal export (JSON:API)',
  description:
    'Drupal JSON:API documents (collections, single resources, compound documents with `included`) as a .json file or a .tar.gz of several: nodes by bundle (articles, recipes, pages), taxonomy terms (tags), files (attachments), media, users (names only); relationships as relation values; translations kept apart.',
  extensions: ['.json', '.tar.gz'],
  features: ['entries', 'taxonomies', 'attachments', 'relations', 'translations', 'archives'],
  detect: detectPhpCms,
  parseTask: 'parsePhpCms',
};

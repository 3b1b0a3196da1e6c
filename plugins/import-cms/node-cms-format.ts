/** node_cms: Strapi 4/5 data-transfer export archives and saved Strapi REST responses. */
import type { ImportFormat, ImportSample } from '../importers/public.js';
import { archiveEntries, nudge, type JsonProfile } from './detect-util.js';

/** A saved REST response: `{data: [{id, attributes}], meta: {pagination}}` (v4) or flat items with `documentId` (v5). */
export function judgeStrapiRest(json: JsonProfile | undefined): number {
  if (!json || json.root !== 'object' || json.recordsPath !== 'data') return 0;
  if (json.topKeys.includes('jsonapi') || json.recordTypes.some((t) => t.includes('--'))) return 0;
  const meta = json.topKeys.includes('meta');
  if (json.recordKeys.includes('documentId')) return meta ? 0.9 : 0.75;
  if (json.recordKeys.includes('attributes') && json.recordKeys.includes('id') && !json.recordKeys.includes('type'))
    return meta ? 0.9 : 0.7;
  return 0;
}

export function detectNodeCms(sample: ImportSample): number {
  const { profile, filename } = sample;
  if (profile.container === 'tar') {
    const entries = archiveEntries(sample);
    if (!entries.some((e) => /(^|\/)entities\/[^/]+\.jsonl$/.test(e))) return 0;
    let score = 0.85;
    if (entries.some((e) => /(^|\/)metadata\.json$/.test(e))) score += 0.05;
    if (entries.some((e) => /(^|\/)schemas\/[^/]+\.jsonl$/.test(e))) score += 0.05;
    return nudge(score, filename, /\.(tar\.gz|tgz|tar)$/i);
  }
  // An encrypted export cannot be read, but it is recognisable: parse says so clearly.
  if (/\.tar(\.gz)?\.enc$/i.test(filename) && profile.kind === 'binary') return 0.6;
  if (profile.kind !== 'json') return 0;
  return nudge(judgeStrapiRest(profile.json), filename, /\.json$/i);
}

export const nodeCmsFormat: Omit<ImportFormat, 'taskFile'> = {
  format: 'node_cms',
  label: 'Strapi export (JSON)',
  description:
    'Strapi 4 and 5 data-transfer exports (`strapi export --no-encrypt`, .tar.gz) and saved Strapi REST responses (.json): content types by plural name, uploads as attachments with their files, links as relations; Strapi 5 draft/published rows fold into one entry; accounts, permissions and password hashes are never imported.',
  extensions: ['.tar.gz', '.json'],
  features: ['entries', 'attachments', 'relations', 'status', 'components', 'archives'],
  detect: detectNodeCms,
  parseTask: 'parseNodeCms',
};

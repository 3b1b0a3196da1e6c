/**
 * Piscina task file of the `xml_blog` format: `parseWxr` streams a WordPress export into the spool
 * file and returns the summary. Expected failures come back as data (blocked reasons, warnings).
 */
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import type { TaskResult } from '../../workers/tasks.js';
import { WxrStream } from './wxr-stream.js';

/**
 * What the run links after writing: a post's or page's featured image (`_thumbnail_id`, kept in featuredImage)
 * to the attachment's media (featuredMedia), a comment's parent (wp:comment_parent, kept in parent) to the
 * parent comment's new entry id (parentEntry); a post's categories and tags (slugs, in the item's order) become
 * many-relations to the categories and tags, a post's or page's author (dc:creator, the login) a relation to the
 * authors, and a page's parent (wp:post_parent) a relation to its parent page.
 */
const WXR_LINKS: NonNullable<ImportParseSummary['links']> = [
  { entity: 'posts', field: 'categories', to: 'categories', as: 'relation', into: 'categories', many: true },
  { entity: 'posts', field: 'tags', to: 'tags', as: 'relation', into: 'tags', many: true },
  { entity: 'posts', field: 'author', to: 'authors', as: 'relation', into: 'author' },
  { entity: 'pages', field: 'author', to: 'authors', as: 'relation', into: 'author' },
  { entity: 'pages', field: 'parent', to: 'pages', as: 'relation', into: 'parent' },
  { entity: 'posts', field: 'featuredImage', to: 'attachments', as: 'media', into: 'featuredMedia' },
  { entity: 'pages', field: 'featuredImage', to: 'attachments', as: 'media', into: 'featuredMedia' },
  { entity: 'comments', field: 'parent', to: 'comments', as: 'entry', into: 'parentEntry' },
];

export async function parseWxr(input: ImportParseInput): Promise<TaskResult<ImportParseSummary>> {
  if (typeof input?.path !== 'string' || typeof input?.spoolPath !== 'string') {
    return { ok: false, issues: [{ code: 'INVALID_INPUT', message: 'path and spoolPath must be strings' }] };
  }
  const spool = new SpoolWriter(input.spoolPath, input.maxDepth || 32);
  try {
    const stream = new WxrStream(input, spool);
    await stream.run();
    const wellFormed = stream.wellFormed;
    return {
      ok: true,
      value: await spool.close({
        acfFields: [...stream.acfFields].sort(),
        links: WXR_LINKS,
        referenced: stream.referencedCounts,
        shortcodes: Object.fromEntries([...stream.shortcodes].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
        ...(wellFormed === undefined ? {} : { wellFormed }),
      }),
    };
  } catch (err) {
    spool.abort();
    return { ok: false, issues: [{ code: 'PARSE_FAILED', message: `the WXR file could not be parsed: ${(err as Error).message}` }] };
  }
}

/**
 * Piscina task file of the `xml_blog` format: `parseWxr` streams a WordPress export into the spool
 * file and returns the summary (its links, the references that become relations: wxr-links.ts). Expected failures
 * come back as data (blocked reasons, warnings).
 */
import type { ImportParseInput, ImportParseSummary } from '../importers/public.js';
import { SpoolWriter } from '../../workers/import/spool-writer.js';
import type { TaskResult } from '../../workers/tasks.js';
import { WxrStream } from './wxr-stream.js';

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
        links: stream.links(),
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

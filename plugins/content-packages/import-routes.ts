import { z } from 'zod';
import { multipartFile, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { applyBodySchema, dataOpRoutes } from '../data-ops/public.js';
import { importInputSchema } from './import-plan.js';
import type { ImportUploads } from './import-uploads.js';
import { IMPORT_DOMAIN } from './public.js';

const tags = ['content-import'];

export function importRoutes(uploads: () => ImportUploads): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/content-import/validate',
      permission: 'content:import',
      tags,
      summary:
        'Uploads a .svelty-package archive (multipart field `file`), extracts it safely and validates it: {uploadId, valid, problems, manifest}',
      description:
        'The archive (gzip tar) is streamed to disk (over CONTENT_IMPORT_MAX_BYTES -> 413 PAYLOAD_TOO_LARGE) and extracted entry by entry into the upload folder: an absolute path or `..` -> ' +
        '400 CONTENT_IMPORT_UNSAFE_PATH, a link -> 400 CONTENT_IMPORT_LINK, a device or FIFO -> 400 CONTENT_IMPORT_SPECIAL_FILE, more entries than CONTENT_IMPORT_MAX_ENTRIES, more ' +
        'decompressed bytes than CONTENT_IMPORT_MAX_EXTRACTED_BYTES or a ratio above CONTENT_IMPORT_MAX_RATIO -> 413 CONTENT_IMPORT_LIMIT, not a gzip tar with a manifest.json -> 400 ' +
        'CONTENT_IMPORT_ARCHIVE_INVALID; each refusal leaves nothing on disk. Then the manifest (format svelty-package, version 1), every file against manifest.files and ' +
        'checksums.sha256, and the schemas against this instance (a field of another type) are checked: problems give valid: false. The upload is kept 24 hours for POST /api/content-import/plan.',
      request: { multipart: z.object({ file: multipartFile('the .svelty-package archive') }) },
      response: z.object({
        uploadId: z.string(),
        valid: z.boolean(),
        problems: z.array(z.string()),
        manifest: z.object({}).passthrough().nullable().describe('manifest.json of the package (null when unreadable)'),
      }),
      handler: async ({ ctx, identity }) => uploads().receiveHttp(ctx, identity),
    }),
    ...dataOpRoutes({
      domain: IMPORT_DOMAIN,
      prefix: '/api/content-import',
      tags,
      permissions: { read: 'content:read', write: 'content:import' },
      plan: {
        summary:
          'Dry run of importing a validated package (modes add, merge default, mirror): identity matching, duplicates, conflicts; stores and answers the plan, changes nothing',
        description:
          'Entries match target entries by (1) syncId, (2) external id (importer links, earlier imports from the same source installation), (3) natural key (slug, unique fields); ' +
          '`mappings` {"<collection>/<syncId>": "<entry id>" | "new" | "skip"} decides an entry outright and resolves ambiguous ones (several candidates: a warning with `item` and a blocked reason). ' +
          'A matched entry with other content is handled per duplicateStrategy (skip, update default, copy: a new entry with a de-duplicated slug, fail: blocked); mode add never updates. ' +
          'Changed here and in the package since the last agreed checksum (baseChecksum or the ledger) is a conflict: skipped unless conflictStrategy is source. Mirror deletes the entries ' +
          'of the package collections that the package does not hold. Collections missing here are created (needs collections:manage), media missing here are carried over from the package.',
        body: importInputSchema.extend({ mode: z.enum(['add', 'merge', 'mirror']).optional() }),
      },
      apply: {
        summary:
          'Applies a content import plan: 200 {planId, outcome, summary, durationMs, verify?} below 500 entities, else 202 {jobId, status: queued}',
        description:
          'One transaction: any failure rolls everything back (outcome rollback; collections and media the plan created are removed). Destructive plans (mirror) need confirmed: true.',
        body: applyBodySchema,
      },
      jobs: {
        summary: "The content-import domain's apply jobs, newest first; ?jobId= narrows to one",
      },
    }),
  ];
}

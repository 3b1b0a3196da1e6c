import { z } from 'zod';
import { multipartFile, defineRoute, type RouteDefinition, type RouteRequestSchemas, type TypedRouteDefinition } from '../../kernel/sdk.js';
import { applyAnswerSchema, applyBodySchema, planViewSchema } from '../data-ops/public.js';
import { BACKUP_ID } from './format.js';
import { auditForeign, planBackupRestore, runBackupRestore } from './restore-run.js';

const backupIdSchema = z.string().regex(BACKUP_ID, 'a backup id from GET /api/backups');
const summary = z.object({
  backupId: z.string(),
  createdAt: z.string(),
  size: z.number().describe('bytes on disk'),
  encrypted: z.boolean(),
  encryption: z
    .enum(['installation', 'passphrase', 'none'])
    .describe(
      "the installation's key (the default: restores here without a passphrase), a passphrase (needed to validate and restore), or none",
    ),
  includesMedia: z.boolean(),
  collections: z.number().describe('number of collections in the backup'),
  entries: z.number().describe('entries over all collections'),
});
const passphrase = z.string().min(1).max(1024).describe('AES-256-GCM key material (scrypt); never stored or logged');

const foreignFlag = z
  .boolean()
  .optional()
  .describe(
    "true: take a backup whose manifest.json is not authenticated by this installation's key (made elsewhere, by an older version, or changed) as foreign; installation administrators only, audited",
  );

/** A route of /api/backups, tagged backups: for the installation's tenant only, or `installation: 'admin'` for its administrators. */
function backupRoute<S extends RouteRequestSchemas>(
  route: Omit<TypedRouteDefinition<S>, 'installation' | 'tags'> & { installation?: 'admin' },
): RouteDefinition {
  return defineRoute<S>({ installation: 'tenant', tags: ['backups'], ...route });
}

export const backupRoutes: RouteDefinition[] = [
  backupRoute({
    method: 'GET',
    path: '/api/backups',
    permission: 'backup:read',
    summary: 'Completed backups, newest first',
    request: {},
    response: z.object({ backups: z.array(summary) }),
    handler: async ({ scope }) => ({ backups: await scope.backups.list() }),
  }),
  backupRoute({
    method: 'POST',
    path: '/api/backups/create',
    permission: 'backup:create',
    summary:
      'Writes a .svelty-backup directory: inline (200 with data.backup) below BACKUP_INLINE_THRESHOLD entities (500), else a background job (202 with data.backupId and jobId)',
    description:
      'The directory <data>/backups/<backupId>.svelty-backup/ holds manifest.json, content/<collection>.ndjson, content-locales/entries.ndjson, config.json, media/manifest.ndjson, ' +
      'media/folders.ndjson, with includeMedia media/files/<storage path>, and checksums.sha256 (folders 0700, files 0600). Every file but the manifest and the ' +
      "checksums is AES-256-GCM encrypted (per-file IV and tag in the manifest): with the installation's backup key by default (<data>/private/backup-key.json; " +
      'such a backup restores on this installation only), with a key derived from the passphrase when one is given (scrypt, per-backup salt; restores ' +
      'anywhere with the passphrase); encrypt: false writes it unencrypted. manifest.json carries an HMAC-SHA256 under the installation key (mac). ' +
      'The oldest backups beyond BACKUP_RETENTION_COUNT (10) are deleted afterwards. GET /api/backups/jobs follows a background create. ' +
      'The whole installation (every tenant): callers of the default tenant only.',
    request: {
      body: z.object({
        includeMedia: z.boolean().optional(),
        passphrase: passphrase.optional(),
        encrypt: z
          .boolean()
          .optional()
          .describe("false: no encryption (default true: the installation's key, or the passphrase's); not with a passphrase"),
      }),
    },
    response: z.object({
      backupId: z.string(),
      backup: summary.optional(),
      jobId: z.string().optional(),
      status: z.literal('queued').optional(),
    }),
    handler: async ({ ctx, body, identity, scope }) => {
      const answer = await scope.backups.create(identity, body);
      ctx.status = answer.status;
      return answer.data;
    },
  }),
  backupRoute({
    method: 'GET',
    path: '/api/backups/jobs',
    permission: 'backup:read',
    summary: 'Background backup creations, newest first (?jobId= narrows to one)',
    request: { query: z.object({ jobId: z.string().max(64).optional() }) },
    response: z.object({
      jobs: z.array(
        z.object({
          jobId: z.string(),
          domain: z.literal('backup'),
          status: z.string(),
          progress: z.object({ processed: z.number(), total: z.number() }),
          outcome: z.string().optional(),
          error: z.string().optional(),
          backupId: z.string().nullable(),
          createdAt: z.string(),
          completedAt: z.string().optional(),
        }),
      ),
    }),
    handler: async ({ query, identity, scope }) => ({ jobs: await scope.backups.jobs(identity, query.jobId) }),
  }),
  backupRoute({
    method: 'POST',
    path: '/api/backups/validate',
    permission: 'backup:create',
    summary: 'Re-hashes every file of a backup (worker pool) and, with the passphrase, checks decryption: {valid, problems}',
    description:
      'A damaged file, a wrong passphrase, an unsupported format version or a manifest not authenticated by this installation (its MAC: changed, ' +
      'made elsewhere or by an older version) answer 200 with valid: false and problems naming the file or the cause.',
    request: { body: z.object({ backupId: backupIdSchema, passphrase: passphrase.optional() }) },
    response: z.object({ valid: z.boolean(), problems: z.array(z.string()) }),
    handler: ({ body, scope }) => scope.backups.validate(body.backupId, body.passphrase),
  }),
  backupRoute({
    method: 'POST',
    path: '/api/backups/restore-plan',
    permission: 'backup:create',
    summary: 'Plans restoring a backup (mode replace): per collection delete N / create M, config, media; changes nothing',
    description:
      'The plan is stored by the data-operation engine (30 minutes). For an encrypted backup the passphrase is checked here; the derived key is kept ' +
      "in this instance's memory only, under a reference in the plan (never the passphrase), so the restore must run on the same instance within " +
      "the plan's life. A collection of the backup missing on this instance is created first (operation create collection, from the backup's " +
      'schema, outside the transaction, dropped again if the restore fails). A damaged backup gives blockedReasons. A manifest not authenticated by ' +
      "this installation's key -> 400 BACKUP_UNTRUSTED, unless an installation administrator sends foreign: true (audited; others 403).",
    request: { body: z.object({ backupId: backupIdSchema, passphrase: passphrase.optional(), foreign: foreignFlag }) },
    response: planViewSchema,
    handler: ({ body, identity, scope }) => planBackupRestore(scope, body, identity),
  }),
  backupRoute({
    method: 'POST',
    path: '/api/backups/restore',
    permission: 'backup:create',
    installation: 'admin',
    summary:
      "Restores a planned backup (the installation's administrators only, always inline); the instance is in maintenance meanwhile (503 MAINTENANCE for everyone else)",
    description:
      'Takes {planId, confirmed, planHash?}; the plan is destructive, so confirmed: true is required (409 CONFIRMATION_REQUIRED). Anyone but an admin of ' +
      "the default tenant -> 403 even with backup:create. Afterwards every restored collection holds exactly the backup's rows (verify compares counts and row checksums).",
    request: { body: applyBodySchema },
    response: applyAnswerSchema,
    handler: ({ body, identity, scope }) => runBackupRestore(scope, body, identity),
  }),
  backupRoute({
    method: 'POST',
    path: '/api/backups/upload',
    permission: 'backup:create',
    installation: 'admin',
    status: 201,
    summary:
      "Uploads a backup archive (the tar.gz of GET /api/backups/:backupId/download, multipart field `file`; the installation's administrators only): streamed to disk, extracted safely, listed under its backupId",
    description:
      'The body is streamed to a file (never held in memory; over BACKUP_UPLOAD_MAX_BYTES -> 413 PAYLOAD_TOO_LARGE), then extracted entry by entry: an absolute path or `..` -> ' +
      '400 BACKUP_ARCHIVE_UNSAFE_PATH, a symbolic or hard link -> 400 BACKUP_ARCHIVE_LINK, a device file or FIFO -> 400 BACKUP_ARCHIVE_SPECIAL_FILE, more entries than ' +
      'BACKUP_UPLOAD_MAX_ENTRIES or more decompressed bytes than BACKUP_UPLOAD_MAX_EXTRACTED_BYTES -> 413 BACKUP_ARCHIVE_LIMIT; not a gzip tar of one ' +
      '<backupId>.svelty-backup folder whose manifest.json is valid and lists exactly the files present -> 400 BACKUP_ARCHIVE_INVALID. A backup with the same id ' +
      "already on this instance -> 409 BACKUP_EXISTS. A manifest not authenticated by this installation's key (its MAC) -> 400 BACKUP_UNTRUSTED unless " +
      '?foreign=true: then it is kept as a foreign backup (audited; its manifest is marked importedAsForeign and authenticated by this installation ' +
      'from then on). Every refusal leaves nothing on disk. Checksums and decryption are checked by POST /api/backups/validate; restore as usual.',
    request: {
      query: z.object({ foreign: z.enum(['true', 'false']).optional().describe(foreignFlag.description!) }),
      multipart: z.object({ file: multipartFile('the .svelty-backup.tar.gz archive') }),
    },
    response: z.object({ backup: summary, importedAsForeign: z.boolean() }),
    handler: async ({ ctx, query, identity, scope }) => {
      const { importedAsForeign, mac, ...backup } = await scope.backups.upload(ctx, identity, query.foreign === 'true');
      if (importedAsForeign) auditForeign(scope, identity, backup.backupId, 'upload', mac);
      return { backup, importedAsForeign };
    },
  }),
  backupRoute({
    method: 'GET',
    path: '/api/backups/:backupId/download',
    permission: 'backup:read',
    envelope: false,
    summary: 'The backup directory as one tar.gz archive, streamed (encrypted files stay encrypted)',
    request: { params: z.object({ backupId: backupIdSchema }) },
    handler: async ({ ctx, params, scope }) => {
      const stream = await scope.backups.archive(params.backupId);
      ctx.set('Content-Type', 'application/gzip');
      ctx.set('Content-Disposition', `attachment; filename="${params.backupId}.svelty-backup.tar.gz"`);
      ctx.body = stream;
    },
  }),
];

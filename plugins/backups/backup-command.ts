/**
 * `cms backup create|list|restore` (issue 39, "A CLI for operators"): the backups of an installation from its data
 * folder or database, without its HTTP server (the CLI boots the kernel on a free loopback port, kernel/cli.ts). The
 * same services as the REST API (backups-service.ts, and restore-run.ts for the restore's checks and maintenance).
 * A restore shows its plan, then asks for `yes` on a terminal (`--yes` for scripts). A passphrase never goes on the
 * command line: `--passphrase-stdin`. Every change is audited with `details.via: 'cli'`.
 */
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AuditLog, CliCommand } from '../../kernel/sdk.js';
import { assertNotBlocked, cliIdentity, confirmChange, parseCommandArgs, planText, readStdinSecret } from '../../lib/cli/operator-kit.js';
import type { BackupsService, BackupSummary } from './backups-service.js';
import { BACKUP_ID } from './format.js';
import { auditForeign, planBackupRestore, runBackupRestore } from './restore-run.js';

const HELP = `
Subcommands:
  create [--media] [--passphrase-stdin | --unencrypted]
      Writes a backup of the whole installation into <data>/backups/<id>.svelty-backup/ and prints its id and folder.
      Encrypted with the installation's key by default (restores on this installation only); --passphrase-stdin
      encrypts it with a passphrase read from standard input instead (restores anywhere with it); --unencrypted
      writes it in clear. --media adds the media files.
  list
      The backups, newest first: id, date, size, encryption, entries.
  restore <backup id | FILE.svelty-backup.tar.gz> [--passphrase-stdin] [--foreign] [--yes]
      Replaces the installation's content, configuration (and media, when the backup has them) with the backup's.
      A FILE (a downloaded archive) is imported first (removed again when nothing is restored). The plan is shown,
      then "yes" is asked on the terminal; --yes skips the question (needed when standard input is not a terminal,
      e.g. with --passphrase-stdin). --foreign takes a backup this installation did not make (audited).

--json prints the answer as JSON. The exit code is 1 with a message in words when anything fails or is refused.

Examples:
  cms backup create
  printf '%s' "$BACKUP_PASSPHRASE" | cms backup create --passphrase-stdin --json
  cms backup restore 20260101T120000000Z-1a2b3c4d
  printf '%s' "$BACKUP_PASSPHRASE" | cms backup restore ./site.svelty-backup.tar.gz --passphrase-stdin --foreign --yes
`;

type Kernel = Parameters<CliCommand['run']>[0]['kernel'];
type Print = (data: unknown, text: string) => void;
const identity = cliIdentity();

const OPTIONS = {
  media: { type: 'boolean' },
  'passphrase-stdin': { type: 'boolean' },
  unencrypted: { type: 'boolean' },
  foreign: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
} as const;
type Values = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];

/** The container's services as a route's scope (restore-run.ts reads them there). */
const scopeOf = (kernel: Kernel) => (kernel.container as unknown as { awilix: { cradle: Record<string, any> } }).awilix.cradle;

async function audit(kernel: Kernel, action: string, operation: string, message: string, details: Record<string, unknown>) {
  await kernel.container.resolve<AuditLog>('audit').append({
    domain: 'backup',
    operation,
    action,
    actor: { userId: null, tenantId: identity.tenantId },
    outcome: 'success',
    level: 'high',
    message,
    details: { via: 'cli', ...details },
  });
}

const sizeText = (bytes: number) => (bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`);
const encryptionText = {
  installation: "encrypted with the installation's key (restores on this installation only)",
  passphrase: 'encrypted with the passphrase (needed to restore it)',
  none: 'not encrypted',
} as const;

async function create(kernel: Kernel, values: Values, print: Print): Promise<void> {
  if (values['passphrase-stdin'] && values.unencrypted)
    throw new Error('--passphrase-stdin encrypts the backup: do not give --unencrypted with it');
  const passphrase = values['passphrase-stdin'] ? await readStdinSecret('passphrase', 1024) : undefined;
  const backups = kernel.container.resolve<BackupsService>('backups');
  const answer = await backups.create(identity, {
    includeMedia: values.media === true,
    ...(passphrase ? { passphrase } : {}),
    ...(values.unencrypted ? { encrypt: false } : {}),
    inline: true,
  });
  const backup = answer.data.backup as BackupSummary;
  const folder = backups.dirOf(backup.backupId);
  await audit(kernel, 'backup.created', 'create', `Backup '${backup.backupId}' created from the command line`, {
    backupId: backup.backupId,
    encryption: backup.encryption,
    includesMedia: backup.includesMedia,
  });
  print(
    { backup, folder },
    `Backup ${backup.backupId} written to ${folder}\n${backup.entries} entries in ${backup.collections} collection(s), ${sizeText(backup.size)}, ${encryptionText[backup.encryption]}.\n`,
  );
}

async function list(kernel: Kernel, print: Print): Promise<void> {
  const backups = await kernel.container.resolve<BackupsService>('backups').list();
  const rows = backups.map(
    (b) =>
      `${b.backupId}  ${b.createdAt}  ${sizeText(b.size).padStart(10)}  ${b.encryption.padEnd(12)}  ${b.entries} entries${b.includesMedia ? ', media' : ''}`,
  );
  print({ backups }, `${rows.join('\n')}${rows.length ? '\n' : ''}${backups.length} backup(s)\n`);
}

/** A backup id, or an archive file imported first (`imported`: it was not listed before this command). */
async function backupOf(kernel: Kernel, target: string, foreign: boolean): Promise<{ backupId: string; imported: boolean }> {
  if (BACKUP_ID.test(target)) return { backupId: target, imported: false };
  const backups = kernel.container.resolve<BackupsService>('backups');
  let uploaded: Awaited<ReturnType<BackupsService['upload']>>;
  try {
    uploaded = await backups.upload({ archivePath: resolve(target) }, identity, foreign);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`'${target}' is neither a backup id (cms backup list) nor an archive file`);
    throw err;
  }
  if (uploaded.importedAsForeign) auditForeign(scopeOf(kernel), identity, uploaded.backupId, 'upload', uploaded.mac);
  return { backupId: uploaded.backupId, imported: true };
}

async function restore(kernel: Kernel, values: Values, target: string | undefined, json: boolean, print: Print): Promise<void> {
  if (!target) throw new Error('cms backup restore needs a backup id (cms backup list) or an archive file');
  const passphrase = values['passphrase-stdin'] ? await readStdinSecret('passphrase', 1024) : undefined;
  const foreign = values.foreign === true;
  const { backupId, imported } = await backupOf(kernel, target, foreign);
  const scope = scopeOf(kernel);
  let restored = false;
  try {
    const plan = await planBackupRestore(
      scope,
      { backupId, ...(passphrase ? { passphrase } : {}), ...(foreign ? { foreign } : {}) },
      identity,
    );
    if (!json) print(null, `Restoring backup ${backupId} replaces the installation's data with the backup's.\n${planText(plan)}`);
    assertNotBlocked(plan);
    await confirmChange(`restore backup ${backupId}`, values.yes);
    const result = await runBackupRestore(scope, { planId: plan.planId, planHash: plan.planHash, confirmed: true }, identity);
    if (!('outcome' in result)) throw new Error('The restore was queued instead of run: nothing was restored');
    restored = result.outcome === 'success' || result.outcome === 'partial';
    if (!restored)
      throw new Error(`The restore failed (${result.outcome}): ${result.error?.message ?? 'see the log'}. The data is as before.`);
    const problems = result.verify && !result.verify.ok ? result.verify.discrepancies : [];
    print(
      { backupId, imported, plan, result },
      `Backup ${backupId} restored (${result.outcome}): ${result.summary.deleted} deleted, ${result.summary.created} created, ${result.summary.updated} updated.\n` +
        (problems.length
          ? `Verify found differences: ${problems.join('; ')}\n`
          : "Verified: every restored table holds the backup's rows.\n"),
    );
  } finally {
    if (imported && !restored)
      await rm(kernel.container.resolve<BackupsService>('backups').dirOf(backupId), { recursive: true, force: true });
  }
}

export const backupCommand: CliCommand = {
  name: 'backup',
  usage: 'create|list|restore [options] [--json]',
  summary: 'Create a backup, list them, or restore one, on this installation (boots, then stops)',
  help: HELP,
  async run({ kernel, json, args, out }) {
    const { positionals, values } = parseCommandArgs('backup', args, OPTIONS);
    const [sub, target, extra] = positionals;
    const print: Print = (data, text) => {
      if (!json) out(text);
      else if (data !== null) out(`${JSON.stringify(data, null, 2)}\n`);
    };
    if (extra !== undefined || (sub !== 'restore' && target !== undefined))
      throw new Error(`Unexpected argument '${extra ?? target}' (cms backup --help lists the options)`);
    if (sub === 'create') return create(kernel, values, print);
    if (sub === 'list') return list(kernel, print);
    if (sub === 'restore') return restore(kernel, values, target, json, print);
    throw new Error(`Unknown subcommand '${sub ?? ''}': use create, list or restore`);
  },
};

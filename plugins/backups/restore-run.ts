/**
 * Planning and running a restore, shared by the REST routes (routes.ts: POST /api/backups/restore-plan and
 * /restore) and the command line (backup-command.ts: `cms backup restore`), so both make the same checks: a
 * backup taken as foreign only by an installation administrator (audited), the restore itself by an installation
 * administrator only, with the instance in maintenance (every instance) while it runs.
 */
import { ForbiddenError, isInstallationAdmin, optional, ServiceUnavailableError, type Identity } from '../../kernel/sdk.js';
import type { ApplyAnswer, ApplyRequest, PlanView } from '../data-ops/public.js';
import type { RestoreInput } from './domain.js';

/** Where an audit entry of the backups plugin comes from: `details.via` (absent for the REST API). */
const viaOf = (identity: Identity) => (typeof identity.meta?.via === 'string' ? { via: identity.meta.via } : {});

/** An audit entry for a backup taken as foreign (its MAC was not this installation's); queued, written at once or at shutdown. */
export function auditForeign(scope: Record<string, any>, identity: Identity, backupId: string, how: string, mac: string): void {
  scope.audit?.record({
    domain: 'backup',
    operation: 'import-foreign',
    actor: { userId: identity.userId ?? null, tenantId: identity.tenantId },
    outcome: 'success',
    level: 'high',
    action: `backup.${how}.foreign`,
    message: `Backup '${backupId}' taken as foreign by ${how} (manifest MAC: ${mac})`,
    details: { backupId, mac, ...viaOf(identity) },
  });
}

const engine = (scope: Record<string, any>) => {
  const e = optional(scope as never, 'dataOps');
  if (!e) throw new ServiceUnavailableError('The data-operation engine (plugin data-ops) is not available');
  return e;
};

/** Plans restoring a backup (mode replace); `foreign` for the installation's administrators only (audited). */
export async function planBackupRestore(
  scope: Record<string, any>,
  body: { backupId: string; passphrase?: string; foreign?: boolean },
  identity: Identity,
): Promise<PlanView> {
  if (body.foreign && !isInstallationAdmin(identity))
    throw new ForbiddenError("Only the installation's administrators may take a backup as foreign");
  const plan = await engine(scope).plan('backup', body, 'replace', identity);
  if (body.foreign) {
    const mac = await scope.backups.trustOf(await scope.backups.manifest(body.backupId));
    if (mac !== 'ok') auditForeign(scope, identity, body.backupId, 'restore-plan', mac);
  }
  return plan;
}

/** Runs a planned restore; maintenance on every instance meanwhile. Refusals come from the engine without maintenance. */
export async function runBackupRestore(
  scope: Record<string, any>,
  body: ApplyRequest,
  identity: Identity,
): Promise<Extract<ApplyAnswer, { status: 200 }>['data'] | { jobId: string; status: 'queued' }> {
  const dataOps = engine(scope);
  const plan = await dataOps.getPlan(body.planId, identity);
  const runnable =
    plan.domain === 'backup' &&
    !plan.appliedAt &&
    !plan.blockedReasons.length &&
    Date.parse(plan.expiresAt) > Date.now() &&
    (!plan.requiresConfirmation || body.confirmed === true) &&
    (body.planHash === undefined || body.planHash === plan.planHash);
  if (!runnable) return (await dataOps.apply('backup', body, identity)).data;
  const input = plan.input as RestoreInput;
  await scope.backupsMaintenance.begin(`restore of backup ${input.backupId}`, plan.planId);
  try {
    const answer = await dataOps.apply('backup', body, identity);
    await scope.backupsDomain.invalidateLists(plan.planId, input.backupId).catch(() => undefined);
    return answer.data;
  } finally {
    scope.backupsDomain.forget(input);
    await scope.backupsMaintenance.end();
  }
}

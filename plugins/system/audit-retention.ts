import { z } from 'zod';
import { type AuditLog, type AuditPruneResult, type Logger, optional, type EveryOptions, type SystemJobContext } from '../../kernel/sdk.js';

/** The System Setting that says how long audit entries are kept (days; 0 keeps every entry). */
export const AUDIT_RETENTION_SETTING = 'AUDIT_RETENTION_DAYS';
const DAY_MS = 24 * 3600 * 1000;

type Cradle = Record<string, any>;

/**
 * AUDIT_RETENTION_DAYS from the settings store (tenant default) when the setup plugin is there and the
 * value is a number of days (a numeric string too); otherwise `fallback` (plugins.options.system.auditRetentionDays, 365).
 */
export async function retentionDays(cradle: Cradle, fallback: number): Promise<number> {
  const settings = optional(cradle, 'settings');
  const value = settings ? await settings.get(AUDIT_RETENTION_SETTING) : undefined;
  const days = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof days === 'number' && Number.isFinite(days) && days >= 0 ? days : fallback;
}

/** Prunes the audit entries older than `days` days (0: all before now); null keeps every entry. */
export async function pruneAudit(
  cradle: Cradle,
  days: number | null,
  actor?: { userId: string | null; tenantId: string },
): Promise<AuditPruneResult & { retentionDays: number | null; before: string | null }> {
  if (days === null) return { deleted: 0, anchor: null, retentionDays: null, before: null };
  const before = new Date(Date.now() - days * DAY_MS);
  const audit: AuditLog = cradle.audit; // the kernel's service (kernel/container-services.ts)
  const result = await audit.prune({ before, actor });
  return { ...result, retentionDays: days, before: before.toISOString() };
}

const PARAMS = z.strictObject({ olderThanDays: z.number().min(0).max(36500).optional() });

/** The prune an administrator starts (POST /api/system-jobs `prune-audit`): params.olderThanDays, or the setting. */
async function pruneOnDemand({ params, container, tenantId, startedBy }: SystemJobContext, fallbackDays: number) {
  // olderThanDays 0 in a request means "everything before now"; the setting's 0 means "keep forever".
  const days = typeof params.olderThanDays === 'number' ? params.olderThanDays : await retentionDays(container.cradle, fallbackDays);
  const keepForever = typeof params.olderThanDays !== 'number' && days === 0;
  return pruneAudit(container.cradle, keepForever ? null : days, { userId: startedBy, tenantId });
}

/**
 * The retention schedule, also the `prune-audit` system job: every `intervalMs` (a day by default;
 * plugins.options.system.auditPruneIntervalMs), first soon after boot so instances that restart more often
 * than daily still prune. Each instance runs it; the prune takes the audit chain's lock and a second run
 * finds nothing left to delete.
 */
export function auditRetention(
  cradle: Cradle,
  logger: Pick<Logger, 'info'>,
  options: { intervalMs: number; fallbackDays: number },
): EveryOptions<object> {
  const { intervalMs, fallbackDays } = options;
  return {
    name: 'prune-audit',
    everyMs: intervalMs,
    firstAfterMs: Math.min(intervalMs, 60000),
    job: {
      description:
        'Deletes the audit entries older than AUDIT_RETENTION_DAYS (or params.olderThanDays); the chain stays verifiable from an anchor.',
      params: PARAMS,
    },
    async run(job) {
      if (job) return pruneOnDemand(job, fallbackDays);
      const days = await retentionDays(cradle, fallbackDays);
      const r = await pruneAudit(cradle, days === 0 ? null : days);
      if (r.deleted) logger.info({ deleted: r.deleted, before: r.before }, 'audit retention: old entries pruned');
      return r;
    },
  };
}

import type { Context } from 'koa';
import { type AuditInput, recordRequestAudit, requestAuditFields } from '../../kernel/sdk.js';
import type { DbTarget } from './db-target.js';
import type { SetupService } from './setup-service.js';

/** Where a database target points, without its credentials (no user name, no password). */
const describe = (t: DbTarget) => (t.type === 'sqlite' ? `sqlite (${t.database})` : `mariadb (${t.host}:${t.port}/${t.database})`);

type Step = {
  operation: string;
  level: NonNullable<AuditInput['level']>;
  outcome?: AuditInput['outcome'];
  message: string;
  details?: Record<string, unknown>;
  actor?: { userId: string | null };
};

/** One setup step in the audit trail (API routes and the setup page's form actions alike). */
export function auditSetupStep(ctx: Context, step: Step): Promise<void> {
  return recordRequestAudit(ctx, {
    domain: 'setup',
    operation: step.operation,
    action: `setup.${step.operation}`,
    outcome: step.outcome ?? 'success',
    level: step.level,
    message: step.message,
    target: { type: 'setup', id: null },
    ...(step.details ? { details: step.details } : {}),
    ...(step.actor ? { actor: step.actor } : {}),
  });
}

/** A database connection test: what was tried (never the credentials) and whether it answered. */
export async function auditedDbTest<T>(ctx: Context, target: DbTarget, test: () => Promise<T>): Promise<T> {
  try {
    const result = await test();
    await auditSetupStep(ctx, {
      operation: 'db-tested',
      level: 'low',
      message: `Setup: database connection to ${describe(target)} works`,
      details: { type: target.type },
    });
    return result;
  } catch (err) {
    await auditSetupStep(ctx, {
      operation: 'db-tested',
      level: 'low',
      outcome: 'failure',
      message: `Setup: database connection to ${describe(target)} failed`,
      details: { type: target.type, code: (err as { code?: string }).code ?? null },
    });
    throw err;
  }
}

/**
 * Seeding started: recorded now, and its end (seeded or failed, with the reason) once the background
 * work finishes, from the fields this request gave (the request is over by then).
 */
export async function auditSeeding(ctx: Context, target: DbTarget, setup: SetupService): Promise<void> {
  await auditSetupStep(ctx, {
    operation: 'seed-started',
    level: 'medium',
    message: `Setup: seeding ${describe(target)} started`,
    details: { type: target.type },
  });
  const fields = await requestAuditFields(ctx, { target: { type: 'setup', id: null } });
  const audit = (ctx.state.scope?.cradle as { audit?: { record(input: AuditInput): void } } | undefined)?.audit;
  void setup
    .seeded()
    .then(() => setup.status())
    .then((status) => {
      const failed = !status.seeded;
      audit?.record({
        domain: 'setup',
        operation: failed ? 'seed-failed' : 'seeded',
        action: failed ? 'setup.seed-failed' : 'setup.seeded',
        outcome: failed ? 'failure' : 'success',
        level: failed ? 'high' : 'medium',
        message: failed
          ? `Setup: seeding failed: ${status.error ?? 'unknown reason'}`
          : 'Setup: database seeded (private config, settings, default collections and theme)',
        actor: fields.actor,
        details: fields.details,
      });
    })
    .catch(() => undefined);
}

/** The first admin exists and setup is ready. */
export function auditSetupComplete(ctx: Context, user: { _id: string; email: string }, siteName: string | undefined): Promise<void> {
  return auditSetupStep(ctx, {
    operation: 'completed',
    level: 'high',
    message: `Setup complete: first admin ${user.email} created${siteName ? `, site name "${siteName}"` : ''}`,
    actor: { userId: user._id },
    details: { adminId: user._id, ...(siteName ? { siteName } : {}) },
  });
}

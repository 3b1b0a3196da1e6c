import { defineError, defineErrorCode } from '../../kernel/sdk.js';

export class DomainNotFoundError extends defineError(
  'DOMAIN_NOT_FOUND',
  404,
  'No data-operation domain with this id is registered (its plugin is disabled or not installed).',
  (id: string) => `No data-operation domain '${id}'`,
) {}

export class PlanNotFoundError extends defineError(
  'PLAN_NOT_FOUND',
  404,
  'No plan with this id for this domain in your tenant (plans of other tenants are not visible); plan again.',
  (planId: string) => `No plan '${planId}'`,
) {}

export class PlanExpiredError extends defineError(
  'PLAN_EXPIRED',
  410,
  'The plan is older than its 30 minutes (expiresAt) and was not applied; plan again.',
  (planId: string, expiresAt: string) => ({ message: `Plan '${planId}' expired at ${expiresAt}; plan again`, extra: { expiresAt } }),
) {}

export class PlanAlreadyAppliedError extends defineError(
  'PLAN_ALREADY_APPLIED',
  409,
  'The plan was applied already, or is queued or running as a background job (`jobId`); a plan applies once: plan again for new work.',
  (planId: string, jobId: string | null) => ({
    message: jobId ? `Plan '${planId}' is applied or running as job ${jobId}` : `Plan '${planId}' was applied already`,
    extra: jobId ? { jobId } : {},
  }),
) {}

export class PlanBlockedError extends defineError(
  'PLAN_BLOCKED',
  400,
  'The plan has blocked reasons (listed in `blockedReasons`); resolve them and plan again.',
  (blockedReasons: string[]) => ({ message: `The plan is blocked: ${blockedReasons.join('; ')}`, extra: { blockedReasons } }),
) {}

export class ConfirmationRequiredError extends defineError(
  'CONFIRMATION_REQUIRED',
  409,
  'The plan is destructive (mode mirror or replace): apply it again with confirmed: true.',
  (planId: string) => `Plan '${planId}' is destructive; send confirmed: true to apply it`,
) {}

export class PlanHashMismatchError extends defineError(
  'PLAN_HASH_MISMATCH',
  409,
  "The planHash sent with apply is not the stored plan's: the client reviewed another plan than the one it applies.",
  (planId: string) => `The planHash does not match plan '${planId}'`,
) {}

export class PlanStaleError extends defineError(
  'PLAN_STALE',
  409,
  'The target changed since the plan was made (its snapshot hash, re-checked under the lock, differs); nothing was applied: plan again.',
  (planId: string) => `The target changed since plan '${planId}' was made; nothing was applied: plan again`,
) {}

export class LockContentionError extends defineError(
  'LOCK_CONTENTION',
  409,
  'Another data operation of the same domain and tenant holds the lock (on any instance) and did not release it in time (DATA_OPS_LOCK_WAIT_MS, 10 s); retry later.',
  (domain: string, waitedMs: number) => ({
    message: `Another '${domain}' operation is running; gave up after ${waitedMs} ms`,
    headers: { 'Retry-After': '5' },
  }),
) {}

export class DataJobNotFoundError extends defineError(
  'DATA_JOB_NOT_FOUND',
  404,
  'No background data-operation job with this id for this domain in your tenant.',
  (jobId: string) => `No job '${jobId}'`,
) {}

export class EventStreamLimitError extends defineError(
  'EVENT_STREAM_LIMIT',
  503,
  'This instance already serves the most completion streams it may (DATA_OPS_MAX_STREAMS, default 200); retry later.',
  () => ({ message: 'Too many open event streams on this instance; try again shortly', headers: { 'Retry-After': '10' }, expose: true }),
) {}

export class TooManyStreamsError extends defineError(
  'TOO_MANY_STREAMS',
  429,
  'This identity (a user with its sessions, API keys and website tokens) already has the most completion streams open it may (DATA_OPS_MAX_STREAMS_PER_IDENTITY, default 5); close one first.',
  (max: number) => ({
    message: `You already have ${max} completion streams open; close one first`,
    headers: { 'Retry-After': '60' },
    expose: true,
  }),
) {}

export class EventStreamNotAcceptedError extends defineError(
  'EVENT_STREAM_NOT_ACCEPTED',
  406,
  'GET /api/data-ops/events answers only requests whose Accept header names text/event-stream (as EventSource sends it).',
  'Send Accept: text/event-stream to open the completion stream',
) {}

defineErrorCode(
  'DATA_OPERATION_FAILED',
  500,
  'An operation of an apply failed with an unexpected error: sent as `error.code` of an apply answer with outcome rollback (completed operations were undone).',
);

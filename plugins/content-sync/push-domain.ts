/**
 * Domain `content-sync-push` (pushes; audit domain content-sync; not transactional: its apply is a
 * network call). Validate builds a package of the local collections for the remote (entries carry our
 * agreed checksums for that peer), uploads it in resumable chunks, and asks the remote to plan it as a
 * content import; the stored plan mirrors the remote plan (operations, warnings, blocked reasons, so the
 * summary counts are the remote's) and its targetHash is the remote planHash (a remote that changed since
 * shows up through the remote's own PLAN_STALE). Its last operation, `remote-apply` (count 0), calls the
 * remote apply (confirmed: our engine enforced the confirmation of a destructive plan), follows the
 * remote job when it answers 202, and on success records the pushed checksums as agreed for the peer.
 * A remote outcome other than success throws SYNC_REMOTE_APPLY_FAILED (our outcome: rollback, with the
 * remote's code in the message); the remote rolled its own transaction back.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, link, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { JobInterruptedError } from '../../kernel/sdk.js';
import type { ContentPackagesService } from '../content-packages/public.js';
import type {
  DataDomainDefinition,
  DataJobView,
  DataOperation,
  DomainContext,
  PlanDraft,
  PlanView,
  VerifyResult,
} from '../data-ops/public.js';
import { remoteCode, SyncRemoteApplyFailedError, SyncRemoteProtocolError, SyncRemoteTimeoutError } from './errors.js';
import { PUSH_DOMAIN, REMOTE_APPLY_OPERATION } from './public.js';
import { REMOTE_BASE, type RemoteClient } from './remote-client.js';
import { mediaOf, resolutionsOf } from './sync-common.js';
import type { SyncDeps } from './sync-deps.js';
import { newPackageName, noteWarnings, recordAgreed, startSync, syncDomainSettings } from './sync-domain.js';
import type { SyncPlanInput, SyncStart } from './sync-domain.js';

/** The stored input of a push plan. */
export interface PushInput extends SyncPlanInput {
  /** The pushed package's copy (relative to the plugin's folder): its checksums are recorded after the apply. */
  pushedPackage: string;
  remotePlanId: string;
  remotePlanHash: string;
}

type BuiltPackage = Awaited<ReturnType<ContentPackagesService['build']>>;

type RemoteApplyAnswer = {
  planId?: string;
  outcome?: string;
  summary?: unknown;
  verify?: VerifyResult;
  error?: { code: string; message: string };
  jobId?: string;
  status?: string;
};

/** Builds the package for the remote (entries carry our agreed checksums for that peer) and keeps a copy of it. */
async function keepPushedPackage(deps: SyncDeps, start: SyncStart, ctx: DomainContext) {
  const built: BuiltPackage = await deps
    .cradle()
    .contentPackages.build({ collections: start.collections, ...mediaOf(start.body) }, ctx.identity, {
      peer: start.hello.installationId,
    });
  const pushedPackage = `${await newPackageName(deps, 'pushed')}.svelty-package`;
  const kept = join(deps.root, pushedPackage);
  await link(built.archivePath, kept).catch(() => copyFile(built.archivePath, kept));
  return { built, pushedPackage, kept };
}

/** Uploads the package in resumable chunks and asks the remote to plan it as a content import. */
async function planOnRemote(deps: SyncDeps, start: SyncStart, kept: string, built: BuiltPackage): Promise<PlanView> {
  const { client, body } = start;
  const { mode } = start.input;
  const transferId = randomUUID();
  await client.upload(transferId, kept, built.size, deps.options.chunkBytes);
  const remote = (
    await client.call<PlanView>('POST', `${REMOTE_BASE}/uploads/${transferId}/plan`, {
      json: {
        sha256: built.sha256,
        mode,
        ...(body.conflictStrategy ? { conflictStrategy: body.conflictStrategy } : {}),
        ...resolutionsOf(body),
      },
      timeoutMs: Math.max(deps.options.requestTimeoutMs, 300_000),
    })
  ).data;
  if (typeof remote?.planId !== 'string' || typeof remote.planHash !== 'string' || !Array.isArray(remote.operations))
    throw new SyncRemoteProtocolError(client.url, 'the remote plan has no planId, planHash and operations');
  return remote;
}

/** The stored plan mirrors the remote's, then our own last operation: the remote apply. */
function mirrorRemotePlan(input: PushInput, remote: PlanView): PlanDraft {
  const operations: DataOperation[] = remote.operations.map((op) => ({
    action: op.action as DataOperation['action'],
    type: op.type,
    target: op.target,
    count: op.count,
  }));
  operations.push({ action: 'update', type: REMOTE_APPLY_OPERATION, target: input.channelName, count: 0 });
  return {
    operations,
    warnings: [...noteWarnings(input), ...remote.warnings],
    blockedReasons: remote.blockedReasons.map((r) => `remote: ${r}`),
    targetHash: input.remotePlanHash,
    risk: remote.risk,
  };
}

/** Calls the remote apply (confirmed: our engine enforced the confirmation) and follows its job when it answers 202. */
async function applyOnRemote(deps: SyncDeps, client: RemoteClient, input: PushInput, signal?: AbortSignal): Promise<RemoteApplyAnswer> {
  const answer = (
    await client.call<RemoteApplyAnswer>('POST', `${REMOTE_BASE}/apply`, {
      json: { planId: input.remotePlanId, planHash: input.remotePlanHash, confirmed: true },
      timeoutMs: Math.max(deps.options.requestTimeoutMs, 600_000),
    })
  ).data;
  if (!answer.jobId) return answer;
  const deadline = Date.now() + deps.options.remoteJobTimeoutMs;
  for (;;) {
    if (signal?.aborted) throw new JobInterruptedError();
    await sleep(deps.options.remoteJobPollMs);
    const job = (await client.call<DataJobView>('GET', `${REMOTE_BASE}/jobs/${encodeURIComponent(answer.jobId)}`, { retry: true })).data;
    if (job.status === 'completed' || job.status === 'failed')
      return { outcome: job.outcome ?? (job.status === 'failed' ? 'failure' : 'success'), summary: job.summary };
    if (Date.now() > deadline) throw new SyncRemoteTimeoutError(client.url, deps.options.remoteJobTimeoutMs);
  }
}

export function pushDomain(deps: SyncDeps): DataDomainDefinition<PushInput> {
  // The remote plan travels from validate() to plan() of the same engine.plan call (same input object).
  const remotePlans = new WeakMap<object, PlanView>();
  // The remote's verify of an applied plan, answered by verify() (bounded: dropped when read or after 100).
  const remoteVerify = new Map<string, VerifyResult>();
  return {
    ...syncDomainSettings(PUSH_DOMAIN, false),
    async validate(raw, ctx) {
      const start = await startSync(deps, raw, ctx, 'local');
      const { built, pushedPackage, kept } = await keepPushedPackage(deps, start, ctx);
      try {
        const remote = await planOnRemote(deps, start, kept, built);
        const input: PushInput = { ...start.input, pushedPackage, remotePlanId: remote.planId, remotePlanHash: remote.planHash };
        remotePlans.set(input, remote);
        return input;
      } catch (err) {
        await rm(kept, { force: true });
        throw err;
      }
    },
    snapshot: async (input) => input.remotePlanHash,
    async plan(input) {
      const remote = remotePlans.get(input);
      if (!remote) throw new Error('content-sync-push: plan() without the remote plan of validate()');
      return mirrorRemotePlan(input, remote);
    },
    async apply(operation, ctx) {
      if (operation.type !== REMOTE_APPLY_OPERATION) return; // mirrored remote operations: applied by the remote apply
      const input = ctx.plan.input as PushInput;
      const channel = await deps.channels().withKey(ctx.plan.tenantId, input.channelId);
      const answer = await applyOnRemote(deps, deps.client(channel, ctx.signal), input, ctx.signal);
      if (answer.outcome !== 'success')
        throw new SyncRemoteApplyFailedError(String(answer.outcome ?? 'unknown'), remoteCode(answer.error?.code));
      if (answer.verify) {
        if (remoteVerify.size >= 100) remoteVerify.delete(remoteVerify.keys().next().value!);
        remoteVerify.set(ctx.plan.planId, answer.verify);
      }
      // Outside any transaction (this domain is not transactional): what both sides now agree on.
      await recordAgreed(deps, input.pushedPackage, ctx.plan.warnings, (items) =>
        deps.cradle().contentPackages.recordBases(ctx.plan.tenantId, input.remoteInstallationId, items),
      );
    },
    async verify(plan) {
      const found = remoteVerify.get(plan.planId);
      remoteVerify.delete(plan.planId);
      return found ?? { ok: true, discrepancies: [] };
    },
  };
}

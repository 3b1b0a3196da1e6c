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
import { copyFile, link, mkdir, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { JobInterruptedError } from '../../kernel/sdk.js';
import type { DataDomainDefinition, DataJobView, DataOperation, PlanView, VerifyResult } from '../data-ops/public.js';
import { remoteCode, SyncRemoteApplyFailedError, SyncRemoteProtocolError, SyncRemoteTimeoutError } from './errors.js';
import { readPackageEntries } from './package-entries.js';
import { PUSH_DOMAIN, REMOTE_APPLY_OPERATION } from './public.js';
import { REMOTE_BASE } from './remote-client.js';
import { agreedEntries, parseSyncInput, prepare, resolutionsOf } from './sync-common.js';
import type { SyncDeps } from './sync-deps.js';

/** The stored input of a push plan (no secret: the key stays in the channel). */
export interface PushInput {
  channelId: string;
  channelName: string;
  remoteInstallationId: string;
  mode: 'merge' | 'mirror';
  collections: string[];
  /** The pushed package's copy (relative to the plugin's folder): its checksums are recorded after the apply. */
  pushedPackage: string;
  remotePlanId: string;
  remotePlanHash: string;
  notes: string[];
}

type RemoteApplyAnswer = {
  planId?: string;
  outcome?: string;
  summary?: unknown;
  verify?: VerifyResult;
  error?: { code: string; message: string };
  jobId?: string;
  status?: string;
};

export function pushDomain(deps: SyncDeps): DataDomainDefinition<PushInput> {
  // The remote plan travels from validate() to plan() of the same engine.plan call (same input object).
  const remotePlans = new WeakMap<object, PlanView>();
  // The remote's verify of an applied plan, answered by verify() (bounded: dropped when read or after 100).
  const remoteVerify = new Map<string, VerifyResult>();
  return {
    id: PUSH_DOMAIN,
    auditDomain: 'content-sync',
    modes: ['merge', 'mirror'],
    defaultMode: 'merge',
    inlineThreshold: 500,
    transactional: false,
    async validate(raw, ctx) {
      const body = parseSyncInput(raw);
      const mode = body.mode ?? 'merge';
      const { channel, client, hello, collections, notes } = await prepare(deps, body, ctx, 'local');
      const built = await deps
        .cradle()
        .contentPackages.build({ collections, ...(body.includeMedia ? { includeMedia: true } : {}) }, ctx.identity, {
          peer: hello.installationId,
        });
      await mkdir(join(deps.root, 'pushed'), { recursive: true });
      const pushedPackage = join('pushed', `${randomUUID()}.svelty-package`);
      const kept = join(deps.root, pushedPackage);
      await link(built.archivePath, kept).catch(() => copyFile(built.archivePath, kept));
      try {
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
        const input: PushInput = {
          channelId: channel.channelId,
          channelName: channel.name,
          remoteInstallationId: hello.installationId,
          mode,
          collections,
          pushedPackage,
          remotePlanId: remote.planId,
          remotePlanHash: remote.planHash,
          notes,
        };
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
      const operations: DataOperation[] = remote.operations.map((op) => ({
        action: op.action as DataOperation['action'],
        type: op.type,
        target: op.target,
        count: op.count,
      }));
      operations.push({ action: 'update', type: REMOTE_APPLY_OPERATION, target: input.channelName, count: 0 });
      return {
        operations,
        warnings: [...input.notes.map((message) => ({ message })), ...remote.warnings],
        blockedReasons: remote.blockedReasons.map((r) => `remote: ${r}`),
        targetHash: input.remotePlanHash,
        risk: remote.risk,
      };
    },
    async apply(operation, ctx) {
      if (operation.type !== REMOTE_APPLY_OPERATION) return; // mirrored remote operations: applied by the remote apply
      const input = ctx.plan.input as PushInput;
      const channel = await deps.channels().withKey(ctx.plan.tenantId, input.channelId);
      const client = deps.client(channel, ctx.signal);
      let answer = (
        await client.call<RemoteApplyAnswer>('POST', `${REMOTE_BASE}/apply`, {
          json: { planId: input.remotePlanId, planHash: input.remotePlanHash, confirmed: true },
          timeoutMs: Math.max(deps.options.requestTimeoutMs, 600_000),
        })
      ).data;
      if (answer.jobId) {
        const deadline = Date.now() + deps.options.remoteJobTimeoutMs;
        for (;;) {
          if (ctx.signal?.aborted) throw new JobInterruptedError();
          await sleep(deps.options.remoteJobPollMs);
          const job = (await client.call<DataJobView>('GET', `${REMOTE_BASE}/jobs/${encodeURIComponent(answer.jobId)}`, { retry: true }))
            .data;
          if (job.status === 'completed' || job.status === 'failed') {
            answer = { outcome: job.outcome ?? (job.status === 'failed' ? 'failure' : 'success'), summary: job.summary };
            break;
          }
          if (Date.now() > deadline) throw new SyncRemoteTimeoutError(client.url, deps.options.remoteJobTimeoutMs);
        }
      }
      if (answer.outcome !== 'success')
        throw new SyncRemoteApplyFailedError(String(answer.outcome ?? 'unknown'), remoteCode(answer.error?.code));
      if (answer.verify) {
        if (remoteVerify.size >= 100) remoteVerify.delete(remoteVerify.keys().next().value!);
        remoteVerify.set(ctx.plan.planId, answer.verify);
      }
      // Outside any transaction (this domain is not transactional): what both sides now agree on.
      const file = join(deps.root, input.pushedPackage);
      const items = agreedEntries(await readPackageEntries(file), ctx.plan.warnings);
      await deps.cradle().contentPackages.recordBases(ctx.plan.tenantId, input.remoteInstallationId, items);
      await rm(file, { force: true });
    },
    async verify(plan) {
      const found = remoteVerify.get(plan.planId);
      remoteVerify.delete(plan.planId);
      return found ?? { ok: true, discrepancies: [] };
    },
  };
}

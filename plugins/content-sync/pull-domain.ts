/**
 * Domain `content-sync` (pulls; audit domain content-sync): the remote builds a package for this
 * installation (its entries carry the remote's agreed checksums for us), it is downloaded (Range,
 * resumed after a dropped connection) and verified during Validate, handed to contentPackages.receive,
 * and from there on the domain is the content-import domain: snapshot, plan, apply and verify delegate
 * to `contentPackages.importDomain` with the import's own input. The domain is transactional, so the
 * engine applies the import's operations in one transaction (its outsideTransaction operations first,
 * with their undos) exactly as it would for a content import. No network I/O happens inside it: after
 * a successful apply, Verify tells the remote which checksums both sides now agree on.
 */
import { access, link, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { IMPORT_DOMAIN } from '../content-packages/public.js';
import type { DataDomainDefinition, DomainContext, StoredPlan, VerifyResult } from '../data-ops/public.js';
import { SyncPackageInvalidError, SyncRemoteProtocolError, SyncTransferLimitError } from './errors.js';
import { PULL_DOMAIN, type RemotePackage } from './public.js';
import { REMOTE_BASE, type RemoteClient } from './remote-client.js';
import { mediaOf, resolutionsOf } from './sync-common.js';
import type { SyncDeps } from './sync-deps.js';
import { newPackageName, noteWarnings, recordAgreed, startSync, syncDomainSettings } from './sync-domain.js';
import type { SyncPlanInput, SyncStart } from './sync-domain.js';

/** The stored input of a pull plan. */
export interface PullInput extends SyncPlanInput {
  /** The received package's copy kept for Verify (relative to the plugin's folder). */
  keptPackage: string;
  /** The content-import domain's normalised input (its uploadId). */
  importInput: unknown;
}

/** Bases sent to the remote per request. */
const BASES_BATCH = 1000;

function importDomain(deps: SyncDeps): DataDomainDefinition<unknown> {
  const domain = deps.cradle().contentPackages.importDomain as DataDomainDefinition<unknown> | null;
  if (!domain) throw new Error('the content-import domain is not available');
  return domain;
}

/** Asks the remote to build a package for this installation (`peer`) and checks its answer against our limit. */
async function requestPackage(deps: SyncDeps, start: SyncStart, peer: string): Promise<RemotePackage> {
  const { client, collections, body } = start;
  const pkg = (
    await client.call<RemotePackage>('POST', `${REMOTE_BASE}/packages`, {
      json: { collections, peer, ...mediaOf(body) },
    })
  ).data;
  if (typeof pkg?.packageId !== 'string' || !Number.isSafeInteger(pkg.size) || !/^[0-9a-f]{64}$/.test(String(pkg.sha256)))
    throw new SyncRemoteProtocolError(client.url, 'the package answer has no packageId, size and sha256');
  if (pkg.size > deps.options.maxTransferBytes)
    throw new SyncTransferLimitError(
      `The remote's package (${pkg.size} bytes) is larger than the limit of ${deps.options.maxTransferBytes} bytes`,
    );
  return pkg;
}

/** Downloads the package (Range, resumed after a dropped connection, checked against its sha256), then removes the remote's copy. */
async function downloadPackage(client: RemoteClient, pkg: RemotePackage, dest: string, ctx: DomainContext): Promise<void> {
  const packagePath = `${REMOTE_BASE}/packages/${encodeURIComponent(pkg.packageId)}`;
  try {
    await client.download(packagePath, dest, pkg.size, pkg.sha256);
  } finally {
    // Best effort: the remote's copy no longer counts toward its open transfers (else pruned after 24 h).
    await client.call('DELETE', packagePath).catch((err) => ctx.logger.debug({ err }, 'content-sync: remote package not removed'));
  }
}

/** Hands the downloaded package to contentPackages.receive and validates it as a content import: the import's input. */
async function receiveAsImport(deps: SyncDeps, start: SyncStart, dest: string, ctx: DomainContext): Promise<unknown> {
  const received = await deps.cradle().contentPackages.receive(dest, ctx.identity);
  if (!received.valid) throw new SyncPackageInvalidError(received.problems);
  return importDomain(deps).validate(
    {
      uploadId: received.uploadId,
      duplicateStrategy: 'update',
      ...(start.body.conflictStrategy === 'source' ? { conflictStrategy: 'source' } : {}),
      ...resolutionsOf(start.body),
    },
    ctx,
  );
}

/**
 * After the apply (outside its transaction): the remote records what both sides now agree on. Once
 * recorded, the kept copy is gone and a later verify call has nothing to do; a failure is a discrepancy.
 */
async function tellRemoteAgreed(deps: SyncDeps, plan: StoredPlan, ctx: DomainContext, result: VerifyResult): Promise<VerifyResult> {
  const input = plan.input as PullInput;
  if (
    !(await access(join(deps.root, input.keptPackage)).then(
      () => true,
      () => false,
    ))
  )
    return result; // recorded already (a later verify call)
  try {
    await recordAgreed(deps, input.keptPackage, plan.warnings, async (items) => {
      const channel = await deps.channels().withKey(plan.tenantId, input.channelId);
      const client = deps.client(channel);
      const peer = await deps.cradle().contentPackages.installationId();
      for (let i = 0; i < items.length; i += BASES_BATCH)
        await client.call('POST', `${REMOTE_BASE}/bases`, { json: { peer, items: items.slice(i, i + BASES_BATCH) }, retry: true });
    });
    return result;
  } catch (err) {
    ctx.logger.warn({ err, planId: plan.planId }, 'content-sync: the remote did not record the agreed checksums');
    const message = err instanceof Error && 'code' in err ? `${(err as { code: string }).code}: ${err.message}` : 'failed';
    return { ok: false, discrepancies: [...result.discrepancies, `the remote did not record the agreed checksums (${message})`] };
  }
}

export function pullDomain(deps: SyncDeps): DataDomainDefinition<PullInput> {
  const imports = () => importDomain(deps);
  const asImportPlan = (plan: StoredPlan): StoredPlan => ({ ...plan, domain: IMPORT_DOMAIN, input: (plan.input as PullInput).importInput });
  return {
    ...syncDomainSettings(PULL_DOMAIN, true),
    async validate(raw, ctx) {
      const start = await startSync(deps, raw, ctx, 'remote');
      const peer = await deps.cradle().contentPackages.installationId();
      const pkg = await requestPackage(deps, start, peer);
      const name = await newPackageName(deps, 'incoming');
      const dest = join(deps.root, `${name}.part`);
      const keptPackage = `${name}.svelty-package`;
      try {
        await downloadPackage(start.client, pkg, dest, ctx);
        // Our own link to the bytes (receive moves the file into the import's staging).
        await link(dest, join(deps.root, keptPackage));
        const importInput = await receiveAsImport(deps, start, dest, ctx);
        return { ...start.input, keptPackage, importInput };
      } catch (err) {
        await rm(join(deps.root, keptPackage), { force: true });
        throw err;
      } finally {
        await rm(dest, { force: true });
      }
    },
    snapshot: (input, ctx) => imports().snapshot(input.importInput, ctx),
    async plan(input, mode, ctx) {
      const draft = await imports().plan(input.importInput, mode, ctx);
      return { ...draft, warnings: [...noteWarnings(input), ...draft.warnings] };
    },
    apply: (operation, ctx) => imports().apply(operation, { ...ctx, plan: asImportPlan(ctx.plan) }),
    async verify(plan, ctx) {
      const result = await imports().verify(asImportPlan(plan), ctx);
      return plan.appliedAt ? tellRemoteAgreed(deps, plan, ctx, result) : result;
    },
  };
}

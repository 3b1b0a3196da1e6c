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
import { randomUUID } from 'node:crypto';
import { access, link, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { IMPORT_DOMAIN } from '../content-packages/public.js';
import type { DataDomainDefinition, StoredPlan } from '../data-ops/public.js';
import { SyncPackageInvalidError, SyncRemoteProtocolError, SyncTransferLimitError } from './errors.js';
import { readPackageEntries } from './package-entries.js';
import { PULL_DOMAIN, type RemotePackage } from './public.js';
import { REMOTE_BASE } from './remote-client.js';
import { agreedEntries, parseSyncInput, prepare, resolutionsOf } from './sync-common.js';
import type { SyncDeps } from './sync-deps.js';

/** The stored input of a pull plan (no secret: the key stays in the channel). */
export interface PullInput {
  channelId: string;
  channelName: string;
  remoteInstallationId: string;
  mode: 'merge' | 'mirror';
  collections: string[];
  /** The received package's copy kept for Verify (relative to the plugin's folder). */
  keptPackage: string;
  notes: string[];
  /** The content-import domain's normalised input (its uploadId). */
  importInput: unknown;
}

/** Bases sent to the remote per request. */
const BASES_BATCH = 1000;

export function pullDomain(deps: SyncDeps): DataDomainDefinition<PullInput> {
  const imports = () => {
    const domain = deps.cradle().contentPackages.importDomain as DataDomainDefinition<unknown> | null;
    if (!domain) throw new Error('the content-import domain is not available');
    return domain;
  };
  const asImportPlan = (plan: StoredPlan): StoredPlan => ({ ...plan, domain: IMPORT_DOMAIN, input: (plan.input as PullInput).importInput });
  return {
    id: PULL_DOMAIN,
    auditDomain: 'content-sync',
    modes: ['merge', 'mirror'],
    defaultMode: 'merge',
    inlineThreshold: 500,
    transactional: true,
    async validate(raw, ctx) {
      const body = parseSyncInput(raw);
      const mode = body.mode ?? 'merge';
      const { channel, client, hello, collections, notes } = await prepare(deps, body, ctx, 'remote');
      const packages = deps.cradle().contentPackages;
      const peer = await packages.installationId();
      const pkg = (
        await client.call<RemotePackage>('POST', `${REMOTE_BASE}/packages`, {
          json: { collections, peer, ...(body.includeMedia ? { includeMedia: true } : {}) },
        })
      ).data;
      if (typeof pkg?.packageId !== 'string' || !Number.isSafeInteger(pkg.size) || !/^[0-9a-f]{64}$/.test(String(pkg.sha256)))
        throw new SyncRemoteProtocolError(client.url, 'the package answer has no packageId, size and sha256');
      if (pkg.size > deps.options.maxTransferBytes)
        throw new SyncTransferLimitError(
          `The remote's package (${pkg.size} bytes) is larger than the limit of ${deps.options.maxTransferBytes} bytes`,
        );
      await mkdir(join(deps.root, 'incoming'), { recursive: true });
      const id = randomUUID();
      const dest = join(deps.root, 'incoming', `${id}.part`);
      const keptPackage = join('incoming', `${id}.svelty-package`);
      try {
        const packagePath = `${REMOTE_BASE}/packages/${encodeURIComponent(pkg.packageId)}`;
        try {
          await client.download(packagePath, dest, pkg.size, pkg.sha256);
        } finally {
          // Best effort: the remote's copy no longer counts toward its open transfers (else pruned after 24 h).
          await client.call('DELETE', packagePath).catch((err) => ctx.logger.debug({ err }, 'content-sync: remote package not removed'));
        }
        // Our own link to the bytes (receive moves the file into the import's staging).
        await link(dest, join(deps.root, keptPackage));
        const received = await packages.receive(dest, ctx.identity);
        if (!received.valid) throw new SyncPackageInvalidError(received.problems);
        const importInput = await imports().validate(
          {
            uploadId: received.uploadId,
            duplicateStrategy: 'update',
            ...(body.conflictStrategy === 'source' ? { conflictStrategy: 'source' } : {}),
            ...resolutionsOf(body),
          },
          ctx,
        );
        return {
          channelId: channel.channelId,
          channelName: channel.name,
          remoteInstallationId: hello.installationId,
          mode,
          collections,
          keptPackage,
          notes,
          importInput,
        };
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
      return { ...draft, warnings: [...input.notes.map((message) => ({ message })), ...draft.warnings] };
    },
    apply: (operation, ctx) => imports().apply(operation, { ...ctx, plan: asImportPlan(ctx.plan) }),
    async verify(plan, ctx) {
      const result = await imports().verify(asImportPlan(plan), ctx);
      if (!plan.appliedAt) return result;
      // After the apply (outside its transaction): the remote records what both sides now agree on.
      const input = plan.input as PullInput;
      const file = join(deps.root, input.keptPackage);
      if (
        !(await access(file).then(
          () => true,
          () => false,
        ))
      )
        return result; // recorded already (a later verify call)
      try {
        const items = agreedEntries(await readPackageEntries(file), plan.warnings);
        const channel = await deps.channels().withKey(plan.tenantId, input.channelId);
        const client = deps.client(channel);
        const peer = await deps.cradle().contentPackages.installationId();
        for (let i = 0; i < items.length; i += BASES_BATCH)
          await client.call('POST', `${REMOTE_BASE}/bases`, { json: { peer, items: items.slice(i, i + BASES_BATCH) }, retry: true });
        await rm(file, { force: true });
        return result;
      } catch (err) {
        ctx.logger.warn({ err, planId: plan.planId }, 'content-sync: the remote did not record the agreed checksums');
        const message = err instanceof Error && 'code' in err ? `${(err as { code: string }).code}: ${err.message}` : 'failed';
        return { ok: false, discrepancies: [...result.discrepancies, `the remote did not record the agreed checksums (${message})`] };
      }
    },
  };
}

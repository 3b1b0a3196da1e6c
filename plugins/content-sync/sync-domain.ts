/**
 * The steps the push and pull domains share around their own network calls: the domain's settings,
 * Validate's first step (input parsed, remote greeted, collections chosen), the part of the stored input
 * that names the channel and its remote, the name of the package copy a plan keeps in the plugin's
 * folder, and the last step after an apply (the entries both sides now agree on are recorded from that
 * copy, which is then removed).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataDomainDefinition, DomainContext } from '../data-ops/public.js';
import { readPackageEntries, type PackageEntryRef } from './package-entries.js';
import { agreedEntries, parseSyncInput, prepare, type Prepared, type SyncInputBody } from './sync-common.js';
import type { SyncDeps } from './sync-deps.js';

/** What the stored input of a plan in either direction names (no secret: the key stays in the channel). */
export interface SyncPlanInput {
  channelId: string;
  channelName: string;
  remoteInstallationId: string;
  mode: 'merge' | 'mirror';
  collections: string[];
  notes: string[];
}

/** What Validate knows once the remote said hello: the parsed input, what prepare() found, and the stored input's shared part. */
export interface SyncStart extends Prepared {
  body: SyncInputBody;
  input: SyncPlanInput;
}

type DomainSettings = Pick<DataDomainDefinition, 'id' | 'auditDomain' | 'modes' | 'defaultMode' | 'inlineThreshold' | 'transactional'>;

/** Both directions: audit domain content-sync, merge by default; only a pull is transactional (a push applies over the network). */
export function syncDomainSettings(id: string, transactional: boolean): DomainSettings {
  return { id, auditDomain: 'content-sync', modes: ['merge', 'mirror'], defaultMode: 'merge', inlineThreshold: 500, transactional };
}

/** Validate's first step: the input parsed, then prepare() with the side that sends. */
export async function startSync(deps: SyncDeps, raw: unknown, ctx: DomainContext, sender: 'local' | 'remote'): Promise<SyncStart> {
  const body = parseSyncInput(raw);
  const mode = body.mode ?? 'merge';
  const prepared = await prepare(deps, body, ctx, sender);
  const { channel, hello, collections, notes } = prepared;
  const input: SyncPlanInput = {
    channelId: channel.channelId,
    channelName: channel.name,
    remoteInstallationId: hello.installationId,
    mode,
    collections,
    notes,
  };
  return { body, input, ...prepared };
}

/** Validate's notes (e.g. the remote's installation id changed) head the plan's warnings. */
export const noteWarnings = (input: SyncPlanInput): Array<{ message: string }> => input.notes.map((message) => ({ message }));

/** A new name (relative to the plugin's folder, without extension) for a package's bytes; the folder is created. */
export async function newPackageName(deps: SyncDeps, folder: 'pushed' | 'incoming'): Promise<string> {
  await mkdir(join(deps.root, folder), { recursive: true });
  return join(folder, randomUUID());
}

/**
 * After an apply: the entries of the kept package both sides now agree on go to `record`, then the copy
 * is removed. When `record` throws the copy stays (a pull's later Verify tries again).
 */
export async function recordAgreed(
  deps: SyncDeps,
  keptPackage: string,
  warnings: Array<{ message: string; item?: string }>,
  record: (items: PackageEntryRef[]) => Promise<void>,
): Promise<void> {
  const file = join(deps.root, keptPackage);
  await record(agreedEntries(await readPackageEntries(file), warnings));
  await rm(file, { force: true });
}

/**
 * What both directions do before planning: the channel's remote says hello (its installation id is
 * learned or refreshed), the collections are chosen, and entries named by a plan's warnings (conflicts)
 * are told apart from those the two sides now agree on.
 */
import { z } from 'zod';
import { ValidationError } from '../../kernel/sdk.js';
import { parseInput, type DomainContext } from '../data-ops/public.js';
import { conflictResolutionsSchema } from '../content-packages/public.js';
import type { ChannelWithKey } from './channel-store.js';
import type { RemoteHello } from './public.js';
import type { PackageEntryRef } from './package-entries.js';
import type { RemoteClient } from './remote-client.js';
import type { SyncDeps } from './sync-deps.js';

export const syncInputSchema = z.strictObject({
  channelId: z.string().min(1).max(36),
  mode: z.enum(['merge', 'mirror']).optional(),
  collections: z.array(z.string().min(1).max(64)).min(1).max(500).optional(),
  includeMedia: z.boolean().optional().meta({
    description:
      'Carry the media files of the entries in the package (default false: media are matched by SHA-256 on the receiving side, missing ones set to null with a warning)',
  }),
  conflictStrategy: z.enum(['skip', 'source']).optional().meta({
    description:
      "Entries changed on both sides since the last sync: 'skip' (default: listed in the warnings, left as they are) or 'source' (the sending side wins)",
  }),
  resolutions: conflictResolutionsSchema.optional().meta({
    description:
      "Per conflict, by its warning's item `<collection>/<syncId>`: 'source' (the sending side's version wins: this instance's on a push, the remote's on a pull) or 'target' (the receiving side keeps its version); beats conflictStrategy for that entry",
  }),
});

/** The resolutions to pass on (only when some are given: an older peer refuses the unknown field). */
export const resolutionsOf = (body: SyncInputBody): { resolutions?: Record<string, 'source' | 'target'> } =>
  body.resolutions && Object.keys(body.resolutions).length ? { resolutions: body.resolutions } : {};
/** includeMedia to pass on (left out unless asked for). */
export const mediaOf = (body: SyncInputBody): { includeMedia?: true } => (body.includeMedia ? { includeMedia: true } : {});
export type SyncInputBody = z.output<typeof syncInputSchema>;

export function parseSyncInput(input: unknown): SyncInputBody {
  return parseInput(syncInputSchema, input ?? {}, 'Invalid content-sync plan input');
}

export interface Prepared {
  channel: ChannelWithKey;
  client: RemoteClient;
  hello: RemoteHello;
  collections: string[];
  notes: string[];
}

/**
 * Loads the channel, greets the remote, refreshes the remote installation id, and chooses the
 * collections: the ones named (each must exist on the side that sends), else those both sides have.
 */
export async function prepare(deps: SyncDeps, body: SyncInputBody, ctx: DomainContext, sender: 'local' | 'remote'): Promise<Prepared> {
  const channel = await deps.channels().withKey(ctx.tenantId, body.channelId);
  const client = deps.client(channel);
  const hello = await client.hello();
  const notes: string[] = [];
  if (hello.installationId !== channel.remoteInstallationId) {
    if (channel.remoteInstallationId)
      notes.push(
        `The remote's installation id changed (${channel.remoteInstallationId} -> ${hello.installationId}): it is another database now, so no earlier sync is known and changes on both sides cannot be told apart from conflicts`,
      );
    await deps.channels().setRemoteInstallation(ctx.tenantId, channel.channelId, hello.installationId);
  }
  const local = (deps.cradle().collections.list() as Array<{ name: string }>).map((c) => c.name);
  const remote = hello.collections;
  let collections: string[];
  if (body.collections) {
    const have = new Set(sender === 'local' ? local : remote);
    const missing = body.collections.filter((c) => !have.has(c));
    if (missing.length)
      throw new ValidationError(
        `Collections not on the ${sender === 'local' ? 'local' : 'remote'} instance: ${missing.join(', ')}`,
        missing.map((c) => ({ path: 'body.collections', message: `'${c}' does not exist on the ${sender} instance` })),
      );
    collections = [...new Set(body.collections)];
  } else {
    const theirs = new Set(remote);
    collections = local.filter((c) => theirs.has(c));
    if (!collections.length)
      throw new ValidationError('The two instances have no collection in common: name the collections to sync', [
        { path: 'body.collections', message: 'no collection in common' },
      ]);
  }
  return { channel, client, hello, collections, notes };
}

/**
 * The entries both sides agree on after an apply: every entry of the package except those a warning
 * names (conflicts skipped, entries that could not be matched: the import's warning items are
 * `<collection>/<syncId>`). When the plan's warnings were cut short ("... and N more warnings"), none:
 * an entry skipped as a conflict must never be recorded as agreed.
 */
export function agreedEntries(entries: PackageEntryRef[], warnings: Array<{ message: string; item?: string }>): PackageEntryRef[] {
  if (warnings.some((w) => !w.item && /^\.\.\. and \d+ more warnings/.test(w.message))) return [];
  const named = new Set<string>();
  for (const w of warnings) for (const m of `${w.item ?? ''} ${w.message}`.matchAll(/[0-9a-fA-F-]{36}/g)) named.add(m[0].toLowerCase());
  return entries.filter((e) => !named.has(e.syncId.toLowerCase()));
}

/**
 * Validate step of a restore: the backup exists and is trusted; for an encrypted one the passphrase
 * derives the right key. The key is kept in this instance's memory under a random `keyRef` (expiring);
 * the stored plan input holds only `{backupId, keyRef, encrypted}`, never the passphrase or the key.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from '../../kernel/sdk.js';
import { parseInput } from '../data-ops/public.js';
import { BACKUP_ID } from './format.js';
import type { DomainDeps, RestoreInput } from './restore-types.js';

const inputSchema = z.object({
  backupId: z.string().regex(BACKUP_ID, 'a backup id from GET /api/backups'),
  passphrase: z.string().min(1).max(1024).optional(),
  keyRef: z.string().uuid().nullable().optional(),
  encrypted: z.boolean().optional(),
  foreign: z.boolean().optional(),
});

/** The key of an encrypted backup, held under the plan input's keyRef (null for an unencrypted one). */
export function restoreKey(d: DomainDeps, input: RestoreInput): Buffer | null {
  if (!input.encrypted) return null;
  const held = input.keyRef ? d.service().keys.get(`restore:${input.keyRef}`) : null;
  if (!held)
    throw new ValidationError(
      'The passphrase of this encrypted backup is no longer held (it expired, the instance restarted, or another instance made the plan): plan the restore again with the passphrase',
    );
  return held.key;
}

/** Drops the held key of a plan's input. */
export function forgetRestoreKey(d: DomainDeps, input: RestoreInput): void {
  if (input.keyRef) d.service().keys.delete(`restore:${input.keyRef}`);
}

export async function validateRestoreInput(d: DomainDeps, raw: unknown): Promise<RestoreInput> {
  const parsed = parseInput(inputSchema, raw, 'Invalid restore input');
  const { backupId, passphrase, keyRef } = parsed;
  const foreign = parsed.foreign === true;
  const m = await d.service().manifest(backupId);
  // The manifest must carry this installation's MAC (nobody changed it), unless taken as foreign.
  await d.service().requireTrusted(m, foreign);
  const extra = foreign ? { foreign: true } : {};
  // Already normalised (the engine validating a stored plan's input again): the key must still be held.
  if (keyRef !== undefined && passphrase === undefined) {
    const input = { backupId, keyRef: keyRef ?? null, encrypted: m.encrypted, ...extra };
    restoreKey(d, input);
    return input;
  }
  const key = await d.service().keyOf(m, passphrase);
  if (!key) return { backupId, keyRef: null, encrypted: false, ...extra };
  const ref = randomUUID();
  d.service().keys.put(`restore:${ref}`, key);
  return { backupId, keyRef: ref, encrypted: true, ...extra };
}

import { z } from 'zod';

export const presenceOptionsSchema = z.object({
  /**
   * How long a tab counts as present after its last heartbeat (the admin UI sends one every ttlMs / 3): a closed tab
   * or a lost connection frees the entry after at most this long.
   */
  ttlMs: z.number().int().min(1000).max(600_000).default(30_000),
  /** At most this many tabs are answered per entry (the oldest first; the editor always among them). */
  maxPerEntry: z.number().int().min(2).max(500).default(50),
});
export type PresenceOptions = z.infer<typeof presenceOptionsSchema>;

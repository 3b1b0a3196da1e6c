import { folderBytes } from './system-figures.js';

/**
 * Per-kernel figures the dashboard keeps itself: failed 2FA verifications announced on the event bus (auth:two-factor-failed)
 * (on any instance, counted since this one started) and the measured storage (cached 30 s).
 */
export class DashboardState {
  failedTwoFactor = 0;
  private storage: { at: number; bytes: Promise<number> } | null = null;

  constructor(private readonly storagePath: string) {}

  storageBytes(): Promise<number> {
    if (!this.storage || Date.now() - this.storage.at > 30_000) this.storage = { at: Date.now(), bytes: folderBytes(this.storagePath) };
    return this.storage.bytes;
  }
}

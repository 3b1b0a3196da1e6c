/**
 * The maintenance plugin's public surface: the container key `maintenance`, for entry points outside
 * the HTTP pipeline (WebSocket upgrades) that must refuse like the middleware does.
 */
import type { Identity } from '../../kernel/sdk.js';

export interface MaintenanceGate {
  /** Whether maintenance mode refuses this identity now (its tenant's switch, or the installation's). */
  refuses(identity: Identity): boolean;
  /**
   * Throws the 503 MAINTENANCE_MODE error (exposed, with retryAfterSeconds) when maintenance refuses the
   * identity, and logs the refusal at info (no stack); `via` names the entry point in the log line.
   */
  assertOpen(identity: Identity, via: string): void;
}

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    /** Absent when the maintenance plugin is disabled. */
    maintenance?: MaintenanceGate;
  }
}

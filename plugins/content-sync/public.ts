/**
 * The content-sync plugin's public surface: its data-operation domain ids and the wire shapes of the
 * remote-facing endpoints a peer calls (/api/content-sync/remote/...). Channels, transfers and the
 * domains are internal.
 */
import type { z } from 'zod';
import type { remoteHelloSchema, remotePackageSchema, transferStateSchema } from './remote-shapes.js';

/** Pull: the remote's package applied here in one transaction (delegating to the content-import domain). */
export const PULL_DOMAIN = 'content-sync';
/** Push: a package uploaded to the remote and applied there (network I/O: not transactional here). */
export const PUSH_DOMAIN = 'content-sync-push';
/** The operation type of a push plan's last operation: the call of the remote's apply (count 0). */
export const REMOTE_APPLY_OPERATION = 'remote-apply';

/** GET /api/content-sync/remote/hello. */
export type RemoteHello = z.output<typeof remoteHelloSchema>;
/** POST /api/content-sync/remote/packages. */
export type RemotePackage = z.output<typeof remotePackageSchema>;
/** GET /api/content-sync/remote/uploads/:transferId and every accepted chunk. */
export type RemoteTransferState = z.output<typeof transferStateSchema>;

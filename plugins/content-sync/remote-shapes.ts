/** The answers of the remote-facing endpoints (routes-remote.ts); public.ts names their types for peers. */
import { z } from 'zod';

/** GET /api/content-sync/remote/hello. */
export const remoteHelloSchema = z.object({ installationId: z.string(), version: z.string(), collections: z.array(z.string()) });
/** POST /api/content-sync/remote/packages. */
export const remotePackageSchema = z.object({ packageId: z.string(), size: z.number().int(), sha256: z.string() });
/** GET /api/content-sync/remote/uploads/:transferId and every accepted chunk. */
export const transferStateSchema = z
  .object({ received: z.number().int(), total: z.number().int() })
  .meta({ id: 'ContentSyncTransferState' });

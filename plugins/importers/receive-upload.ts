import type { Context } from 'koa';
import { receiveMultipartFile, type ReceivedMultipart } from '../../kernel/sdk.js';

export type ReceivedImport = ReceivedMultipart;

const label = (maxBytes: number) => `${+(maxBytes / 1048576).toFixed(2)} MiB (IMPORT_MAX_BYTES)`;

/** Streams the export to `target` (the job folder's upload file); the kernel's multipart rules and refusals. */
export function receiveImport(ctx: Context, target: string, maxBytes: number): Promise<ReceivedImport> {
  return receiveMultipartFile(ctx, target, maxBytes, label(maxBytes));
}

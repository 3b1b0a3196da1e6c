import type { ContainerServices } from '../../kernel/sdk.js';
import type { ChannelStore, ChannelWithKey } from './channel-store.js';
import type { ContentSyncOptions } from './options.js';
import type { RemoteClient } from './remote-client.js';
import type { TransferStore } from './transfer-store.js';

/** What the domains and routes of this plugin share (index.ts builds it). */
export interface SyncDeps {
  /** The booted container's cradle (throws before boot). */
  cradle(): ContainerServices & Record<string, any>;
  channels(): ChannelStore;
  transfers(): TransferStore;
  options: ContentSyncOptions;
  /** CMS_OUTBOUND_ALLOW_PRIVATE (kernel config outbound.allowPrivate). */
  allowPrivate: boolean;
  /** `<dataPath>/content-sync`. */
  root: string;
  client(channel: ChannelWithKey, signal?: AbortSignal): RemoteClient;
}

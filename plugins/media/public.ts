/**
 * The media plugin's public surface: its event names, its container keys (declared type-only), so
 * `scope.media`, `scope.mediaStorage` and the others are typed in route handlers, and the contract of
 * the `storageDrivers` extension point it reads.
 */
import type { FoldersService } from './folders-service.js';
import type { MediaClientFactory } from './media-client.js';
import type { MediaService } from './media-service.js';
import type { MediaStorage } from './media-storage.js';
import type { MediaTrash } from './media-trash.js';
import type { SharesService } from './shares-service.js';
import type { StorageDriver } from './storage-driver.js';

export type { MediaClient, MediaClientFactory } from './media-client.js';
export type { MediaStorage } from './media-storage.js';
export type { PopulatedMedia } from './media-view.js';
export type { OpenedFile, StorageDriver } from './storage-driver.js';

/** A file was uploaded; payload `{ tenantId, media: { _id, filename, mimeType, size, url } }`. */
export const MEDIA_UPLOADED = 'on:media_upload';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    media: MediaService;
    mediaStorage: MediaStorage;
    mediaFolders: FoldersService;
    mediaTrash: MediaTrash;
    mediaShares: SharesService;
    mediaClient: MediaClientFactory;
  }
}

declare module '../../kernel/sdk.js' {
  interface ExtensionPoints {
    storageDrivers: StorageDriver;
  }
}

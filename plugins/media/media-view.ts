import type { MediaItem } from './models/media-item.js';

export interface SharedLink {
  /** SHA-256 hex of the raw token: a database read does not reveal usable links. */
  token: string;
  /** Epoch ms; null = never expires. */
  expiresAt: number | null;
  /** SHA-256 hex of the password (the spec's scheme); absent = no password. */
  passwordHash?: string;
  createdAt: number;
  createdBy: string | null;
}

export interface StoredThumbnail {
  path: string;
  width: number;
  height: number;
  size: number;
}

export interface MediaMetadata {
  sharedLinks: SharedLink[];
  thumbnails: Record<string, StoredThumbnail>;
}

export function metadataOf(row: Pick<MediaItem, 'metadata'>): MediaMetadata {
  let parsed: Partial<MediaMetadata> = {};
  try {
    parsed = JSON.parse(row.metadata) as Partial<MediaMetadata>;
  } catch {
    // a damaged value reads as empty
  }
  return {
    ...parsed,
    sharedLinks: Array.isArray(parsed.sharedLinks) ? parsed.sharedLinks : [],
    thumbnails: parsed.thumbnails && typeof parsed.thumbnails === 'object' ? parsed.thumbnails : {},
  };
}

/** `/files/<path>`, each segment URL-encoded. */
export const fileUrl = (path: string) => `/files/${path.split('/').map(encodeURIComponent).join('/')}`;

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

/** The decisions' first fields of a media item: id, name, type, size and address. */
const fileOf = (row: MediaItem) => ({
  _id: row.id,
  filename: row.filename,
  mimeType: row.mime_type,
  size: Number(row.size),
  url: fileUrl(row.path),
});

/** Width and height, for images whose size is known. */
const sizeOf = (row: MediaItem) => (row.width !== null && row.height !== null ? { width: row.width, height: row.height } : {});

/** What the API answers for a media item (the decisions' fields first; share tokens never, only their ids). */
export function mediaView(row: MediaItem) {
  const meta = metadataOf(row);
  const thumbs = Object.entries(meta.thumbnails);
  const now = Date.now();
  return {
    ...fileOf(row),
    checksum: row.checksum,
    ...sizeOf(row),
    ...(thumbs.length
      ? { thumbnails: Object.fromEntries(thumbs.map(([name, t]) => [name, { url: fileUrl(t.path), width: t.width, height: t.height }])) }
      : {}),
    folderId: row.folder_id,
    private: Boolean(row.private),
    originalName: row.original_name,
    ownerId: row.owner_id,
    storage: row.storage,
    sharedLinks: meta.sharedLinks.map((l) => ({
      id: l.token,
      expiresAt: l.expiresAt === null ? null : iso(l.expiresAt),
      expired: l.expiresAt !== null && l.expiresAt <= now,
      hasPassword: Boolean(l.passwordHash),
      createdAt: iso(l.createdAt),
      createdBy: l.createdBy,
    })),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}
export type MediaView = ReturnType<typeof mediaView>;

/** A media item as a populated media field answers it (API decisions, "Content model v2": populate). */
export function populatedMedia(row: MediaItem) {
  return { ...fileOf(row), ...sizeOf(row) };
}
export type PopulatedMedia = ReturnType<typeof populatedMedia>;

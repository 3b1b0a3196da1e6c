import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Op, literal, type Sequelize, type WhereOptions } from 'sequelize';
import { z } from 'zod';
import {
  UnsupportedMediaTypeError,
  ValidationError,
  type EventBus,
  type Identity,
  type Logger,
  type WorkerPool,
  modelsOf,
} from '../../kernel/sdk.js';
import { detectType } from './detect-type.js';
import { EmptyFileError, MediaNotFoundError } from './errors.js';
import type { FoldersService } from './folders-service.js';
import { imageDimensions, makeThumbnails, type GeneratedThumbnail } from './images.js';
import { uploadLimits, type MediaOptions, type SettingsReader, type UploadLimits } from './media-options.js';
import { storagePath, thumbnailParts, thumbnailPath } from './media-paths.js';
import type { MediaStorage } from './media-storage.js';
import { mediaView, metadataOf, populatedMedia, type MediaMetadata, type MediaView, type PopulatedMedia } from './media-view.js';
import { MediaItem } from './models/media-item.js';
import { MEDIA_UPLOADED } from './public.js';
import type { ReceivedFile } from './receive-upload.js';
import { assertNameFitsContent } from './name-policy.js';
import { keptName, slugOf } from './safe-names.js';
import { likeContains } from '../../kernel/text/like-contains.js';
import { listLimit } from '../../lib/http/list-limit.js';
import { PathCache } from './path-cache.js';
import { RASTER_TYPES, typeAllowed } from './type-policy.js';

export const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  /** Above 100 is capped, not refused (as collection lists). */
  limit: listLimit(),
  /** A folder id, or `root` for media outside any folder. */
  folderId: z.union([z.literal('root'), z.string().uuid()]).optional(),
  /** `image` or `image/` (every image type) or an exact type such as `application/pdf`. */
  type: z
    .string()
    .max(127)
    .regex(/^[a-z0-9.+-]+(\/[a-z0-9.+-]*)?$/i, 'a type such as image/ or application/pdf')
    .optional(),
  /** Part of the shown or original file name (case-insensitive). */
  search: z.string().max(191).optional(),
  sort: z.enum(['createdAt', '-createdAt', 'filename', '-filename', 'size', '-size']).default('-createdAt'),
  private: z.enum(['true', 'false']).optional(),
});
export type ListQuery = z.output<typeof listQuerySchema>;

const SORT_COLUMNS = { createdAt: 'created_at', filename: 'filename', size: 'size' } as const;

/** The multipart text fields of an upload: folderId (a folder id; empty or `null` = root), private (`true`/`false`). */
export function uploadFields(fields: Record<string, string>): { folderId: string | null; private: boolean } {
  const folder = (fields.folderId ?? '').trim();
  if (folder !== '' && folder !== 'null' && !z.string().uuid().safeParse(folder).success) {
    throw new ValidationError('folderId must be a folder id', [{ path: 'folderId', message: 'not a folder id' }]);
  }
  const priv = (fields.private ?? '').trim().toLowerCase();
  if (!['', 'true', 'false', '1', '0'].includes(priv))
    throw new ValidationError("private must be 'true' or 'false'", [{ path: 'private', message: 'not a boolean' }]);
  return { folderId: folder === '' || folder === 'null' ? null : folder, private: priv === 'true' || priv === '1' };
}

export interface MediaServiceDeps {
  sequelize: Sequelize;
  pool: WorkerPool;
  events: EventBus;
  logger: Logger;
  storage: MediaStorage;
  folders: FoldersService;
  /** With MEDIA_MAX_UPLOAD_MB and MEDIA_ALLOWED_TYPES merged in by the kernel (they win over options and settings). */
  options: MediaOptions;
  settings: () => SettingsReader | null;
  tmpDir: string;
  /** The media plugin's worker task file (JSON validation). */
  tasksFile: string;
}

/** A file /files/ can answer: an original or one of its thumbnails, with the item it belongs to. */
export interface ServedFile {
  item: MediaItem;
  path: string;
  mimeType: string;
  size: number;
  filename: string;
}

/** Uploads and the library: every query is scoped to the caller's tenant and skips trashed items. */
export class MediaService {
  private readonly paths = new PathCache<ServedFile>();

  private readonly models: { MediaItem: typeof MediaItem };

  constructor(private readonly deps: MediaServiceDeps) {
    this.models = modelsOf(deps.sequelize.models, { MediaItem });
  }

  /** Where uploads wait while they are checked (<data>/tmp). */
  get tmpDir(): string {
    return this.deps.tmpDir;
  }

  limits(): Promise<UploadLimits> {
    return uploadLimits(this.deps.options, this.deps.settings());
  }

  private async isJson(path: string): Promise<boolean> {
    const result = await this.deps.pool.run<{ ok: boolean; value?: boolean }>('validateJson', { path }, this.deps.tasksFile);
    return result.ok && result.value === true;
  }

  /**
   * Stores a received file (a temporary file the caller removes): an empty file is refused (400
   * EMPTY_FILE), the type comes from the content and must be on the allow list (415), the user's name is
   * kept as it is unless its extension contradicts the content dangerously (415 MEDIA_TYPE_MISMATCH, see
   * name-policy.ts); then checksum in the worker pool, dimensions and thumbnails for raster images,
   * original and thumbnails through the driver, the record, and the on:media_upload event.
   */
  async ingest(
    identity: Identity,
    file: ReceivedFile,
    input: { folderId: string | null; private: boolean },
    limits?: UploadLimits,
  ): Promise<MediaView> {
    const { storage, folders, pool, options, tmpDir } = this.deps;
    if (file.size === 0) throw new EmptyFileError();
    const { allowedTypes } = limits ?? (await this.limits());
    await folders.requireForInput(identity.tenantId, input.folderId, 'folderId');
    const type = await detectType(file.tempPath, file.originalName, file.size, (p) => this.isJson(p));
    if (!typeAllowed(type.mimeType, allowedTypes))
      throw new UnsupportedMediaTypeError(`Files of type ${type.mimeType} are not allowed here (MEDIA_ALLOWED_TYPES)`);
    const filename = keptName(file.originalName, type.ext);
    assertNameFitsContent(filename, type.mimeType);
    const sum = await pool.sha256File(file.tempPath);
    if (!sum.ok) throw new Error(`checksum failed: ${sum.issues.map((i) => i.message).join('; ')}`);
    const id = randomUUID();
    const now = new Date();
    // The storage path takes the detected type's extension (stores and CDNs derive types from it); the shown name stays the user's.
    const path = storagePath({ tenantId: identity.tenantId, private: input.private, id, slug: slugOf(filename), ext: type.ext, at: now });
    let dims: { width: number; height: number } | null = null;
    let thumbs: GeneratedThumbnail[] = [];
    const stored: string[] = [];
    try {
      if (RASTER_TYPES.has(type.mimeType)) {
        dims = await imageDimensions(file.tempPath);
        if (dims) thumbs = await makeThumbnails(file.tempPath, dims.width, options.thumbnails, options.thumbnailQuality, tmpDir);
      }
      const put = async (target: string, source: string, mimeType: string, size: number) => {
        const body = createReadStream(source);
        try {
          await storage.put(target, body, { mimeType, size });
          stored.push(target);
        } finally {
          body.destroy();
        }
      };
      await put(path, file.tempPath, type.mimeType, file.size);
      const metadata: MediaMetadata = { sharedLinks: [], thumbnails: {} };
      for (const t of thumbs) {
        const target = thumbnailPath(path, t.name);
        await put(target, t.tempPath, 'image/webp', t.size);
        metadata.thumbnails[t.name] = { path: target, width: t.width, height: t.height, size: t.size };
      }
      const row = await this.models.MediaItem.create({
        id,
        tenant_id: identity.tenantId,
        filename,
        original_name: file.originalName.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 255),
        mime_type: type.mimeType,
        size: file.size,
        path,
        checksum: sum.value.sha256,
        width: dims?.width ?? null,
        height: dims?.height ?? null,
        folder_id: input.folderId,
        owner_id: identity.userId,
        private: input.private,
        metadata: JSON.stringify(metadata),
        storage: storage.id,
        created_month: now.toISOString().slice(0, 7),
        created_at: now.getTime(),
        updated_at: now.getTime(),
        deleted_at: null,
      });
      const view = mediaView(row);
      await this.announce(identity.tenantId, view);
      return view;
    } catch (err) {
      await this.discard(stored);
      throw err;
    } finally {
      await Promise.all(thumbs.map((t) => rm(t.tempPath, { force: true })));
    }
  }

  /** Best effort: files stored for an upload that then failed. */
  private async discard(paths: string[]): Promise<void> {
    for (const p of paths) {
      try {
        await this.deps.storage.delete(p);
        if (this.deps.storage.hasTrash) await this.deps.storage.purge(p);
      } catch (err) {
        this.deps.logger.warn({ err, path: p }, 'could not remove a file of a failed upload');
      }
    }
  }

  private async announce(tenantId: string, view: MediaView): Promise<void> {
    try {
      await this.deps.events.publish(MEDIA_UPLOADED, {
        tenantId,
        media: { _id: view._id, filename: view.filename, mimeType: view.mimeType, size: view.size, url: view.url },
      });
    } catch (err) {
      this.deps.logger.warn({ err }, 'on:media_upload could not be published');
    }
  }

  async row(identity: Identity, id: string): Promise<MediaItem> {
    const row = z.string().uuid().safeParse(id).success
      ? await this.models.MediaItem.findOne({ where: { id, tenant_id: identity.tenantId, deleted_at: null } })
      : null;
    if (!row) throw new MediaNotFoundError(id);
    return row;
  }

  async get(identity: Identity, id: string): Promise<MediaView> {
    return mediaView(await this.row(identity, id));
  }

  /**
   * Media of a tenant by id as populated fields answer them (content's `populate`), in one query; private
   * items only with `includePrivate`, deleted ones never. At most 1,000 ids.
   */
  async populated(tenantId: string, ids: string[], includePrivate: boolean): Promise<Map<string, PopulatedMedia>> {
    const wanted = [...new Set(ids)].filter((id) => z.string().uuid().safeParse(id).success).slice(0, 1000);
    if (!wanted.length) return new Map();
    const rows = await this.models.MediaItem.findAll({
      where: { id: { [Op.in]: wanted }, tenant_id: tenantId, deleted_at: null, ...(includePrivate ? {} : { private: false }) },
    });
    return new Map(rows.map((r) => [r.id, populatedMedia(r)]));
  }

  async list(identity: Identity, query: ListQuery): Promise<{ items: MediaView[]; total: number; page: number; limit: number }> {
    const and: WhereOptions[] = [{ tenant_id: identity.tenantId }, { deleted_at: null }];
    if (query.folderId) and.push({ folder_id: query.folderId === 'root' ? null : query.folderId });
    if (query.private) and.push({ private: query.private === 'true' });
    if (query.type) {
      const t = query.type.toLowerCase();
      and.push(t.includes('/') && !t.endsWith('/') ? { mime_type: t } : { mime_type: { [Op.like]: `${t.replace(/\/$/, '')}/%` } });
    }
    if (query.search) {
      const db = this.deps.sequelize;
      and.push({ [Op.or]: [likeContains(db, 'filename', query.search, true), likeContains(db, 'original_name', query.search, true)] });
    }
    const desc = query.sort.startsWith('-');
    const column = SORT_COLUMNS[query.sort.replace(/^-/, '') as keyof typeof SORT_COLUMNS];
    const { rows, count } = await this.models.MediaItem.findAndCountAll({
      where: { [Op.and]: and },
      order: [
        [column, desc ? 'DESC' : 'ASC'],
        ['id', 'ASC'],
      ],
      limit: query.limit,
      offset: (query.page - 1) * query.limit,
    });
    return { items: rows.map(mediaView), total: count, page: query.page, limit: query.limit };
  }

  /**
   * Files and bytes of every tenant's media rows, trash included (its files are still stored; thumbnails
   * not counted): what the installation's media storage holds, for the dashboard's storage figures.
   */
  async storedBytes(): Promise<{ count: number; bytes: number }> {
    const [count, bytes] = await Promise.all([this.models.MediaItem.count(), this.models.MediaItem.sum('size')]);
    return { count, bytes: Number(bytes ?? 0) || 0 };
  }

  /** The shown name (kept as given, with the upload's name policy against the stored type) and/or the folder. */
  async update(identity: Identity, id: string, input: { filename?: string; folderId?: string | null }): Promise<MediaView> {
    const row = await this.row(identity, id);
    const changes: Partial<MediaItem> = { updated_at: Date.now() };
    if (input.filename !== undefined) {
      const ext = /\.([^./]+)$/.exec(row.path)?.[1] ?? 'bin';
      changes.filename = keptName(input.filename, ext);
      assertNameFitsContent(changes.filename, row.mime_type);
    }
    if (input.folderId !== undefined) {
      await this.deps.folders.requireForInput(identity.tenantId, input.folderId, 'folderId');
      changes.folder_id = input.folderId;
    }
    await row.update(changes);
    this.forgetPaths(row.path);
    return mediaView(row);
  }

  /** Moves media between virtual folders: only folder_id changes (paths, URLs and share links stay). */
  async move(identity: Identity, ids: string[], folderId: string | null): Promise<{ moved: number; notFound: string[] }> {
    await this.deps.folders.requireForInput(identity.tenantId, folderId, 'folderId');
    const unique = [...new Set(ids)];
    const found = await this.models.MediaItem.findAll({
      attributes: ['id'],
      where: { id: { [Op.in]: unique }, tenant_id: identity.tenantId, deleted_at: null },
    });
    const foundIds = new Set(found.map((r) => r.id));
    if (foundIds.size) {
      await this.models.MediaItem.update(
        { folder_id: folderId, updated_at: Date.now() },
        { where: { id: { [Op.in]: [...foundIds] }, tenant_id: identity.tenantId } },
      );
    }
    return { moved: foundIds.size, notFound: unique.filter((i) => !foundIds.has(i)) };
  }

  /** Deletes through the driver (local: to its trash, thumbnails too; remote: directly) and hides or drops the record. */
  async remove(identity: Identity, id: string): Promise<{ deleted: true; trashed: boolean }> {
    const row = await this.row(identity, id);
    const { storage } = this.deps;
    for (const p of [row.path, ...Object.values(metadataOf(row).thumbnails).map((t) => t.path)]) await storage.delete(p);
    if (storage.hasTrash) await row.update({ deleted_at: Date.now() });
    else await row.destroy();
    this.forgetPaths(row.path);
    return { deleted: true, trashed: storage.hasTrash };
  }

  /** The original or thumbnail stored at a path (any tenant: /files/ checks access itself), or null; cached briefly. */
  async fileAt(path: string): Promise<ServedFile | null> {
    const cached = this.paths.get(path);
    if (cached !== undefined) return cached;
    const found = await this.lookup(path);
    // Misses are not cached: a file uploaded a moment later must be found at once.
    if (found) this.paths.set(path, found);
    return found;
  }

  /** After a change to an item (rename, delete, restore, purge): its paths are looked up again. */
  forgetPaths(path: string): void {
    this.paths.forget(path);
  }

  private async lookup(path: string): Promise<ServedFile | null> {
    const row = await this.models.MediaItem.findOne({ where: { path, deleted_at: null } });
    if (row) return { item: row, path, mimeType: row.mime_type, size: Number(row.size), filename: row.filename };
    const parts = thumbnailParts(path);
    if (!parts) return null;
    const like = `${parts.stem.replace(/[!%_]/g, (c) => `!${c}`)}.%`;
    const candidates = await this.models.MediaItem.findAll({
      where: { [Op.and]: [{ deleted_at: null }, literal(`path LIKE ${this.deps.sequelize.escape(like)} ESCAPE '!'`)] },
      limit: 5,
    });
    for (const item of candidates) {
      const thumb = metadataOf(item).thumbnails[parts.name];
      if (thumb?.path === path) {
        return {
          item,
          path,
          mimeType: 'image/webp',
          size: thumb.size,
          filename: `${item.filename.replace(/\.[^.]*$/, '')}.${parts.name}.webp`,
        };
      }
    }
    return null;
  }
}

import { Op } from 'sequelize';
import { type Identity, type Logger, modelsOf, type ModelMap } from '../../kernel/sdk.js';
import { MediaNotFoundError, TrashUnavailableError } from './errors.js';
import type { FoldersService } from './folders-service.js';
import type { MediaStorage } from './media-storage.js';
import { mediaView, metadataOf, type MediaView } from './media-view.js';
import { MediaItem } from './models/media-item.js';

const filesOf = (row: MediaItem) => [row.path, ...Object.values(metadataOf(row).thumbnails).map((t) => t.path)];

/**
 * The local driver's trash, seen per tenant: deleted media keep their record (deleted_at) while their
 * files are in the trash, so restoring brings back the item with its id, folder and share links.
 */
export class MediaTrash {
  private readonly models: { MediaItem: typeof MediaItem };

  constructor(
    models: ModelMap,
    private readonly storage: MediaStorage,
    private readonly folders: FoldersService,
    private readonly logger: Logger,
  ) {
    this.models = modelsOf(models, { MediaItem });
  }

  private requireTrash(): void {
    if (!this.storage.hasTrash) throw new TrashUnavailableError(this.storage.id);
  }

  async list(identity: Identity): Promise<{
    supported: boolean;
    items: Array<{ _id: string; filename: string; path: string; mimeType: string; size: number; deletedAt: string }>;
  }> {
    if (!this.storage.hasTrash) return { supported: false, items: [] };
    const rows = await this.models.MediaItem.findAll({
      where: { tenant_id: identity.tenantId, deleted_at: { [Op.ne]: null } },
      order: [
        ['deleted_at', 'DESC'],
        ['id', 'ASC'],
      ],
      limit: 1000,
    });
    return {
      supported: true,
      items: rows.map((r) => ({
        _id: r.id,
        filename: r.filename,
        path: r.path,
        mimeType: r.mime_type,
        size: Number(r.size),
        deletedAt: new Date(Number(r.deleted_at)).toISOString(),
      })),
    };
  }

  private async trashed(identity: Identity, where: { path?: string; id?: string }): Promise<MediaItem> {
    const row = await this.models.MediaItem.findOne({ where: { ...where, tenant_id: identity.tenantId, deleted_at: { [Op.ne]: null } } });
    if (!row) throw new MediaNotFoundError(where.id ?? where.path ?? '');
    return row;
  }

  /** Puts the files back and the item in the library (at the root when its folder is gone). */
  async restore(identity: Identity, where: { path?: string; id?: string }): Promise<MediaView> {
    this.requireTrash();
    const row = await this.trashed(identity, where);
    const [original, ...thumbs] = filesOf(row);
    await this.storage.restore(original!);
    for (const t of thumbs) {
      await this.storage.restore(t).catch((err) => this.logger.warn({ err, path: t }, 'thumbnail not restored'));
    }
    const folderGone = row.folder_id !== null && !(await this.folders.find(identity.tenantId, row.folder_id));
    await row.update({ deleted_at: null, updated_at: Date.now(), ...(folderGone ? { folder_id: null } : {}) });
    return mediaView(row);
  }

  /** Deletes trashed files for good: one item (by path or id) or all of the tenant's. */
  async purge(identity: Identity, where: { path?: string; id?: string }): Promise<{ purged: number }> {
    this.requireTrash();
    const rows =
      where.path || where.id
        ? [await this.trashed(identity, where)]
        : await this.models.MediaItem.findAll({ where: { tenant_id: identity.tenantId, deleted_at: { [Op.ne]: null } } });
    for (const row of rows) {
      for (const p of filesOf(row)) await this.storage.purge(p);
      await row.destroy();
    }
    return { purged: rows.length };
  }
}

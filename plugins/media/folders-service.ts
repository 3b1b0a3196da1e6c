import { randomUUID } from 'node:crypto';
import { QueryTypes, UniqueConstraintError, type Sequelize } from 'sequelize';
import { ValidationError, modelsOf } from '../../kernel/sdk.js';
import { FolderExistsError, FolderNotEmptyError, FolderNotFoundError } from './errors.js';
import { MediaFolder } from './models/media-folder.js';
import { MediaItem } from './models/media-item.js';

export interface FolderView {
  _id: string;
  name: string;
  parentId: string | null;
  itemCount: number;
  createdAt: string;
}

const view = (f: MediaFolder, itemCount = 0): FolderView => ({
  _id: f.id,
  name: f.name,
  parentId: f.parent_id,
  itemCount,
  createdAt: new Date(Number(f.created_at)).toISOString(),
});

/** Virtual folders of a tenant's media library: a tree of names; media point at one by folder_id. */
export class FoldersService {
  private readonly models: { MediaFolder: typeof MediaFolder; MediaItem: typeof MediaItem };

  constructor(private readonly sequelize: Sequelize) {
    this.models = modelsOf(sequelize.models, { MediaFolder, MediaItem });
  }

  async find(tenantId: string, id: string): Promise<MediaFolder | null> {
    return this.models.MediaFolder.findOne({ where: { id, tenant_id: tenantId } });
  }

  /** For inputs naming a folder (upload, move): an unknown one is a bad request, not a missing resource. */
  async requireForInput(tenantId: string, id: string | null, field: string): Promise<void> {
    if (id !== null && !(await this.find(tenantId, id)))
      throw new ValidationError(`Unknown ${field}: no media folder '${id}'`, [{ path: field, message: 'unknown folder' }]);
  }

  private async get(tenantId: string, id: string): Promise<MediaFolder> {
    const folder = await this.find(tenantId, id);
    if (!folder) throw new FolderNotFoundError(id);
    return folder;
  }

  async list(tenantId: string): Promise<FolderView[]> {
    const folders = await this.models.MediaFolder.findAll({
      where: { tenant_id: tenantId },
      order: [
        ['name', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    const counts = await this.sequelize.query<{ folder_id: string; n: number | string }>(
      'SELECT folder_id, COUNT(*) AS n FROM media_items WHERE tenant_id = ? AND deleted_at IS NULL AND folder_id IS NOT NULL GROUP BY folder_id',
      { replacements: [tenantId], type: QueryTypes.SELECT },
    );
    const byId = new Map(counts.map((c) => [c.folder_id, Number(c.n)]));
    return folders.map((f) => view(f, byId.get(f.id) ?? 0));
  }

  async create(tenantId: string, input: { name: string; parentId?: string | null }): Promise<FolderView> {
    const parentId = input.parentId ?? null;
    await this.requireForInput(tenantId, parentId, 'parentId');
    try {
      const folder = await this.models.MediaFolder.create({
        id: randomUUID(),
        tenant_id: tenantId,
        name: input.name,
        parent_id: parentId,
        parent_key: parentId ?? '',
        created_at: Date.now(),
      });
      return view(folder);
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new FolderExistsError(input.name);
      throw err;
    }
  }

  /** Rename and/or move under another parent (not under itself or one of its descendants). */
  async update(tenantId: string, id: string, input: { name?: string; parentId?: string | null }): Promise<FolderView> {
    const folder = await this.get(tenantId, id);
    const changes: Partial<MediaFolder> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.parentId !== undefined) {
      const parentId = input.parentId;
      if (parentId !== null) {
        await this.requireForInput(tenantId, parentId, 'parentId');
        for (let cursor: string | null = parentId, hops = 0; cursor !== null && hops < 1000; hops++) {
          if (cursor === id)
            throw new ValidationError('A folder cannot be moved into itself or one of its subfolders', [
              { path: 'parentId', message: 'cycle' },
            ]);
          cursor = (await this.find(tenantId, cursor))?.parent_id ?? null;
        }
      }
      changes.parent_id = parentId;
      changes.parent_key = parentId ?? '';
    }
    try {
      await folder.update(changes);
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new FolderExistsError(changes.name ?? folder.name);
      throw err;
    }
    return (await this.list(tenantId)).find((f) => f._id === id)!;
  }

  /** Only an empty folder (no media, trashed ones aside, and no subfolders) can go: 409 FOLDER_NOT_EMPTY. */
  async remove(tenantId: string, id: string): Promise<void> {
    const folder = await this.get(tenantId, id);
    const items = await this.models.MediaItem.count({ where: { tenant_id: tenantId, folder_id: id, deleted_at: null } });
    const folders = await this.models.MediaFolder.count({ where: { tenant_id: tenantId, parent_id: id } });
    if (items || folders) throw new FolderNotEmptyError(items, folders);
    await folder.destroy();
  }
}

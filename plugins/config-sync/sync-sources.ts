/**
 * Where the files of a plan or a status come from: the sync folder on disk, or a bundle uploaded with
 * POST /api/config/bundle (kept BUNDLE_TTL_MS in cms_config_sync_uploads). Every entry is checked the same
 * way (shape, type, checksum of its data, the adapter's check); a failing one is a problem, never thrown.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import { RESOURCE_TYPES, type ResourceAdapter, type ResourceType } from './resources.js';
import {
  BUNDLE_FORMAT,
  BUNDLE_MAX_FILES,
  BUNDLE_TTL_MS,
  BundleError,
  checksumOf,
  safeName,
  UploadNotFound,
  type Bundle,
  type BundleFile,
  type ConfigInput,
  type FileProblem,
  type FileSource,
  type SyncFile,
} from './sync-types.js';

export class SyncSources {
  constructor(
    private readonly adapters: Record<ResourceType, ResourceAdapter>,
    private readonly sequelize: () => Sequelize,
    private readonly folder: (tenantId: string) => string,
  ) {}

  /** Checks one parsed file or bundle entry; a problem string or the file. */
  parseEntry(parsed: any, file: string, type: ResourceType): SyncFile | string {
    if (
      !parsed ||
      typeof parsed !== 'object' ||
      typeof parsed.uuid !== 'string' ||
      !parsed.uuid ||
      parsed.uuid.length > 64 ||
      typeof parsed.name !== 'string' ||
      !parsed.name ||
      (typeof parsed.checksum !== 'string' && parsed.checksum !== null && parsed.checksum !== undefined) ||
      typeof parsed.data !== 'object' ||
      parsed.data === null ||
      Array.isArray(parsed.data)
    )
      return 'must be {uuid, type, name, checksum, data, externalId?}';
    if (parsed.externalId !== undefined && (typeof parsed.externalId !== 'string' || !parsed.externalId || parsed.externalId.length > 191))
      return 'externalId must be a non-empty string of at most 191 characters';
    if (parsed.type !== type) return `has type '${String(parsed.type)}' but lies in the folder '${type}'`;
    // A hand edit is declared by removing the checksum; a file whose checksum no longer matches was changed
    // without saying so (tampering, a bad merge) and blocks.
    const unsealed = parsed.checksum === null || parsed.checksum === undefined || parsed.checksum === '';
    if (!unsealed && checksumOf(parsed.data) !== parsed.checksum)
      return 'checksum does not match its data: the file was changed after export without removing its checksum (to accept a hand edit, set "checksum" to null)';
    const invalid = this.adapters[type].check(parsed.data);
    if (invalid) return invalid;
    if (type === 'dashboard' && parsed.name !== 'default-layout') return "the dashboard resource is named 'default-layout'";
    return {
      uuid: parsed.uuid,
      type,
      name: parsed.name,
      checksum: unsealed ? checksumOf(parsed.data) : parsed.checksum,
      data: parsed.data,
      ...(parsed.externalId ? { externalId: parsed.externalId as string } : {}),
      file,
      ...(unsealed ? { unsealed: true } : {}),
    };
  }

  /** Reads the sync files of the given types; unreadable or tampered files are problems, never thrown. */
  readFiles(tenantId: string, types: ResourceType[]): FileSource {
    const files: SyncFile[] = [];
    const problems: FileProblem[] = [];
    const root = this.folder(tenantId);
    for (const type of types) {
      const dir = join(root, type);
      if (!existsSync(dir)) continue;
      for (const entry of readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()) {
        const file = `${type}/${entry}`;
        let parsed: any;
        try {
          parsed = JSON.parse(readFileSync(join(dir, entry), 'utf8'));
        } catch {
          problems.push({ file, problem: 'is not valid JSON' });
          continue;
        }
        const checked = this.parseEntry(parsed, file, type);
        if (typeof checked === 'string') problems.push({ file, problem: checked });
        else files.push(checked);
      }
    }
    return { files, problems, label: 'config/sync/' };
  }

  /**
   * Checks a bundle's shape (throws BundleError when it is not a bundle at all); each entry is checked like
   * a file on disk (shape, type, checksum, data): entries that fail are problems (they block a plan).
   */
  checkBundle(value: unknown): { bundle: Bundle; problems: FileProblem[] } {
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new BundleError('The bundle must be a JSON object {files: [...]}');
    const raw = value as Record<string, unknown>;
    if (raw.format !== undefined && raw.format !== BUNDLE_FORMAT) throw new BundleError(`The bundle's format must be '${BUNDLE_FORMAT}'`);
    if (raw.version !== undefined && raw.version !== 1) throw new BundleError('The bundle has an unsupported version (expected 1)');
    if (!Array.isArray(raw.files)) throw new BundleError('The bundle must have a files array');
    if (raw.files.length > BUNDLE_MAX_FILES) throw new BundleError(`The bundle has more than ${BUNDLE_MAX_FILES} files`);
    const problems: FileProblem[] = [];
    const files: BundleFile[] = [];
    raw.files.forEach((entry: any, i: number) => {
      const type = entry?.type;
      if (!RESOURCE_TYPES.includes(type)) {
        problems.push({ file: `files[${i}]`, problem: `has an unknown type '${String(type)}'` });
        return;
      }
      const path = typeof entry.name === 'string' && entry.name ? `${type}/${safeName(entry.name)}` : `files[${i}]`;
      const checked = this.parseEntry(entry, path, type as ResourceType);
      if (typeof checked === 'string') problems.push({ file: path, problem: checked });
      else {
        const { file: _file, ...rest } = checked;
        files.push(rest);
      }
    });
    return { bundle: { format: BUNDLE_FORMAT, version: 1, files }, problems };
  }

  /** Stores an uploaded bundle (valid entries and problems) for BUNDLE_TTL_MS; expired uploads are removed. */
  async storeUpload(
    tenantId: string,
    userId: string | null,
    value: unknown,
    size: number,
  ): Promise<{ uploadId: string; valid: boolean; problems: FileProblem[]; files: number; expiresAt: string }> {
    const { bundle, problems } = this.checkBundle(value);
    const now = Date.now();
    const uploadId = randomUUID();
    await this.sequelize().query('DELETE FROM cms_config_sync_uploads WHERE expires_at < ?', { replacements: [now] });
    await this.sequelize().query(
      'INSERT INTO cms_config_sync_uploads (upload_id, tenant_id, user_id, bundle, size, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      { replacements: [uploadId, tenantId, userId, JSON.stringify({ bundle, problems }), size, now, now + BUNDLE_TTL_MS] },
    );
    return {
      uploadId,
      valid: problems.length === 0,
      problems,
      files: bundle.files.length,
      expiresAt: new Date(now + BUNDLE_TTL_MS).toISOString(),
    };
  }

  /** The files of an uploaded bundle, like readFiles (throws UploadNotFound for an unknown, expired or foreign upload). */
  async readUpload(tenantId: string, uploadId: string, types: ResourceType[]): Promise<FileSource> {
    const rows = await this.sequelize().query<{ bundle: string }>(
      'SELECT bundle FROM cms_config_sync_uploads WHERE upload_id = ? AND tenant_id = ? AND expires_at >= ?',
      { replacements: [uploadId, tenantId, Date.now()], type: QueryTypes.SELECT },
    );
    if (!rows.length) throw new UploadNotFound(`No bundle upload '${uploadId}' (unknown or expired)`);
    const stored = JSON.parse(rows[0]!.bundle) as { bundle: Bundle; problems: FileProblem[] };
    const files = stored.bundle.files.filter((f) => types.includes(f.type)).map((f) => ({ ...f, file: `${f.type}/${safeName(f.name)}` }));
    const problems = stored.problems.filter((p) => {
      const type = p.file.split('/')[0] as ResourceType;
      return !RESOURCE_TYPES.includes(type) || types.includes(type);
    });
    return { files, problems, label: 'bundle:' };
  }

  /** The files of an input: the upload when it names one, else the sync folder. */
  async source(tenantId: string, input: Pick<ConfigInput, 'types' | 'uploadId'>): Promise<FileSource> {
    return input.uploadId ? this.readUpload(tenantId, input.uploadId, input.types) : this.readFiles(tenantId, input.types);
  }
}

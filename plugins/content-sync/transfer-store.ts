/**
 * Transfers served to a peer (table cms_content_sync_transfers, files under `<dataPath>/content-sync/`):
 * packages built for a peer to download (`outgoing/<id>.svelty-package`, a hard link of the built
 * archive, copied where links are not possible) and uploads received from a peer in chunks
 * (`uploads/<id>.part`; the bytes received are the file's size, so a partly written chunk is simply
 * continued). Bounded: a size limit, at most `maxOpenTransfers` per tenant, pruned `transferTtlMs` after
 * they started.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, open, rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { Op, QueryTypes, type Sequelize } from 'sequelize';
import { ValidationError } from '../../kernel/sdk.js';
import { SyncTransferIncompleteError, SyncTransferLimitError, SyncTransferNotFoundError, SyncTransferOffsetError } from './errors.js';
import type { ContentSyncOptions } from './options.js';
import type { RemotePackage, RemoteTransferState } from './public.js';

interface Row {
  id: string;
  kind: 'upload' | 'package';
  file: string;
  total: number | string;
  sha256: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `Content-Range: bytes start-end/total` of an upload chunk. */
export function parseContentRange(header: string): { start: number; end: number; total: number } {
  const m = /^bytes (\d{1,16})-(\d{1,16})\/(\d{1,16})$/.exec(header.trim());
  const bad = () =>
    new ValidationError('Content-Range must be `bytes <start>-<end>/<total>` with start <= end < total', [
      { path: 'headers.content-range', message: 'expected bytes <start>-<end>/<total>' },
    ]);
  if (!m) throw bad();
  const [start, end, total] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!(start <= end && end < total)) throw bad();
  return { start, end, total };
}

export class TransferStore {
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(
    private readonly sequelize: () => Sequelize,
    readonly root: string,
    private readonly options: Pick<ContentSyncOptions, 'maxTransferBytes' | 'maxOpenTransfers' | 'transferTtlMs' | 'chunkBytes'>,
  ) {}

  private async row(tenantId: string, id: string, kind: Row['kind']): Promise<Row | null> {
    if (!UUID.test(id)) return null;
    const rows = await this.sequelize().query<Row>(
      'SELECT id, kind, file, total, sha256 FROM cms_content_sync_transfers WHERE tenant_id = ? AND id = ? AND kind = ? AND expires_at > ?',
      { replacements: [tenantId, id, kind, Date.now()], type: QueryTypes.SELECT },
    );
    return rows[0] ?? null;
  }

  private async checkRoom(tenantId: string, total: number): Promise<void> {
    if (total > this.options.maxTransferBytes)
      throw new SyncTransferLimitError(`The transfer (${total} bytes) is larger than the limit of ${this.options.maxTransferBytes} bytes`);
    const [{ n }] = await this.sequelize().query<{ n: number | string }>(
      'SELECT COUNT(*) AS n FROM cms_content_sync_transfers WHERE tenant_id = ? AND expires_at > ?',
      { replacements: [tenantId, Date.now()], type: QueryTypes.SELECT },
    );
    if (Number(n) >= this.options.maxOpenTransfers)
      throw new SyncTransferLimitError(`At most ${this.options.maxOpenTransfers} transfers may be open at once; retry when one finished`);
  }

  private async insert(
    tenantId: string,
    createdBy: string | null,
    id: string,
    kind: Row['kind'],
    file: string,
    total: number,
    sha256: string | null,
  ) {
    const now = Date.now();
    await this.sequelize().query(
      'INSERT INTO cms_content_sync_transfers (id, tenant_id, kind, created_by, file, total, sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      { replacements: [id, tenantId, kind, createdBy, file, total, sha256, now, now + this.options.transferTtlMs] },
    );
  }

  /** Serves a built archive to a peer: linked into outgoing/ (its own copy, whatever the builder prunes). */
  async offerPackage(
    tenantId: string,
    createdBy: string | null,
    archivePath: string,
    size: number,
    sha256: string,
  ): Promise<RemotePackage> {
    await this.checkRoom(tenantId, size);
    const id = randomUUID();
    const dir = join(this.root, 'outgoing');
    await mkdir(dir, { recursive: true });
    const file = join('outgoing', `${id}.svelty-package`);
    await link(archivePath, join(this.root, file)).catch(() => copyFile(archivePath, join(this.root, file)));
    await this.insert(tenantId, createdBy, id, 'package', file, size, sha256);
    return { packageId: id, size, sha256 };
  }

  async packageFile(tenantId: string, id: string): Promise<{ path: string; size: number; sha256: string }> {
    const row = await this.row(tenantId, id, 'package');
    if (!row) throw new SyncTransferNotFoundError(id);
    const path = join(this.root, row.file);
    const size = await stat(path).then(
      (s) => s.size,
      () => null,
    );
    if (size === null) throw new SyncTransferNotFoundError(id);
    return { path, size, sha256: row.sha256 ?? '' };
  }

  private async received(row: Row): Promise<number> {
    return stat(join(this.root, row.file)).then(
      (s) => s.size,
      () => 0,
    );
  }

  async uploadState(tenantId: string, id: string): Promise<RemoteTransferState> {
    const row = await this.row(tenantId, id, 'upload');
    if (!row) throw new SyncTransferNotFoundError(id);
    return { received: await this.received(row), total: Number(row.total) };
  }

  /** One transfer at a time per id in this process (a peer sends its chunks one after the other). */
  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const before = this.busy.get(id) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(fn);
    const tail = run.catch(() => undefined);
    this.busy.set(id, tail);
    void tail.then(() => {
      if (this.busy.get(id) === tail) this.busy.delete(id);
    });
    return run;
  }

  /**
   * Writes a chunk at `start`. The first chunk (start 0) opens the transfer; a chunk starting beyond
   * the bytes received is 409 SYNC_TRANSFER_OFFSET; a chunk at or before it is (re)written there, so a
   * repeated chunk is harmless. The body must have end - start + 1 bytes (a shorter one is kept as far
   * as it came, and the peer continues from the received offset).
   */
  async writeChunk(
    tenantId: string,
    createdBy: string | null,
    id: string,
    range: { start: number; end: number; total: number },
    body: Readable,
  ): Promise<RemoteTransferState> {
    if (!UUID.test(id)) throw new ValidationError('The transfer id must be a UUID', [{ path: 'params.transferId', message: 'not a UUID' }]);
    const length = range.end - range.start + 1;
    if (length > Math.max(4 * this.options.chunkBytes, 16 * 1024 * 1024))
      throw new SyncTransferLimitError(`A chunk may carry at most ${Math.max(4 * this.options.chunkBytes, 16 * 1024 * 1024)} bytes`);
    return this.serial(id, async () => {
      let row = await this.row(tenantId, id, 'upload');
      if (!row) {
        if (range.start !== 0) throw new SyncTransferNotFoundError(id);
        await this.checkRoom(tenantId, range.total);
        await mkdir(join(this.root, 'uploads'), { recursive: true });
        const file = join('uploads', `${id}.part`);
        await rm(join(this.root, file), { force: true });
        await (await open(join(this.root, file), 'w')).close();
        try {
          await this.insert(tenantId, createdBy, id, 'upload', file, range.total, null);
        } catch {
          throw new SyncTransferNotFoundError(id); // the id exists (another tenant's, or expired): never shared
        }
        row = (await this.row(tenantId, id, 'upload'))!;
      }
      const total = Number(row.total);
      if (range.total !== total)
        throw new ValidationError(`The transfer has ${total} bytes in all, not ${range.total}`, [
          { path: 'headers.content-range', message: 'total differs from the first chunk' },
        ]);
      const have = await this.received(row);
      if (range.start > have) throw new SyncTransferOffsetError(have, total);
      const handle = await open(join(this.root, row.file), 'r+');
      let written = 0;
      try {
        for await (const piece of body as AsyncIterable<Buffer>) {
          if (written + piece.length > length)
            throw new ValidationError(`The chunk has more than the ${length} bytes its Content-Range announces`, [
              { path: 'body', message: 'longer than Content-Range' },
            ]);
          await handle.write(piece, 0, piece.length, range.start + written);
          written += piece.length;
        }
      } finally {
        await handle.close();
      }
      if (written !== length)
        throw new ValidationError(`The chunk has ${written} bytes, its Content-Range announces ${length}`, [
          { path: 'body', message: 'shorter than Content-Range' },
        ]);
      return { received: await this.received(row), total };
    });
  }

  /** A complete upload whose SHA-256 is `sha256`: its path (the caller hands it on and then calls finish). */
  async completeUpload(tenantId: string, id: string, sha256: string): Promise<string> {
    const row = await this.row(tenantId, id, 'upload');
    if (!row) throw new SyncTransferNotFoundError(id);
    const path = join(this.root, row.file);
    const have = await this.received(row);
    if (have !== Number(row.total)) throw new SyncTransferIncompleteError(`The upload has ${have} of ${Number(row.total)} bytes`);
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    if (hash.digest('hex') !== sha256.toLowerCase())
      throw new SyncTransferIncompleteError('The upload does not match the announced SHA-256');
    return path;
  }

  async finish(tenantId: string, id: string): Promise<void> {
    const rows = await this.sequelize().query<Row>(
      'SELECT id, kind, file, total, sha256 FROM cms_content_sync_transfers WHERE tenant_id = ? AND id = ?',
      {
        replacements: [tenantId, id],
        type: QueryTypes.SELECT,
      },
    );
    for (const r of rows) await rm(join(this.root, r.file), { force: true });
    await this.sequelize().query('DELETE FROM cms_content_sync_transfers WHERE tenant_id = ? AND id = ?', { replacements: [tenantId, id] });
  }

  /** Removes expired transfers and their files (a bounded batch). */
  async prune(): Promise<number> {
    const rows = await this.sequelize().query<Row>(
      'SELECT id, kind, file, total, sha256 FROM cms_content_sync_transfers WHERE expires_at <= ? ORDER BY expires_at LIMIT 500',
      { replacements: [Date.now()], type: QueryTypes.SELECT },
    );
    for (const r of rows) await rm(join(this.root, r.file), { force: true });
    if (rows.length)
      await this.sequelize()
        .getQueryInterface()
        .bulkDelete('cms_content_sync_transfers', { id: { [Op.in]: rows.map((r) => r.id) } });
    return rows.length;
  }
}

/**
 * Reads the entries' identities and checksums out of a package archive (a gzip-compressed tar;
 * content/<collection>.ndjson, one PackageEntry per line), streaming: what a push records as agreed.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Parser, type ReadEntry } from 'tar';

export interface PackageEntryRef {
  collection: string;
  syncId: string;
  checksum: string;
}

const CONTENT_FILE = /(?:^|\/)content\/([^/]+)\.ndjson$/;

export async function readPackageEntries(archivePath: string): Promise<PackageEntryRef[]> {
  const out: PackageEntryRef[] = [];
  const pending: Promise<void>[] = [];
  const parser = new Parser({ strict: true } as never);
  parser.on('entry', (entry: ReadEntry) => {
    const m = CONTENT_FILE.exec(entry.path.replace(/^\.\//, ''));
    if (!m || entry.type !== 'File') return void entry.resume();
    const collection = m[1]!;
    const lines = new PassThrough();
    entry.pipe(lines);
    pending.push(
      (async () => {
        for await (const line of createInterface({ input: lines, crlfDelay: Infinity })) {
          if (!line.trim()) continue;
          const e = JSON.parse(line) as { syncId?: unknown; checksum?: unknown };
          if (typeof e.syncId === 'string' && typeof e.checksum === 'string')
            out.push({ collection, syncId: e.syncId, checksum: e.checksum });
        }
      })(),
    );
  });
  await pipeline(createReadStream(archivePath), parser as unknown as NodeJS.WritableStream);
  await Promise.all(pending);
  return out;
}

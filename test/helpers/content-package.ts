/**
 * Builds `.svelty-package` archives by hand for the content-import tests: a package folder (manifest,
 * schemas, content NDJSON, media manifest and files, checksums.sha256) tarred and gzipped, with entry
 * checksums computed by the plugin's own codec so they equal the exporter's. Also raw ustar entries for
 * hostile archives.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar';
import { entryChecksum } from '../../plugins/content-packages/entry-codec.js';

export interface TestField {
  name: string;
  type: string;
  unique?: boolean;
  required?: boolean;
  collection?: string;
  options?: string[];
}
export interface TestEntry {
  syncId?: string;
  sourceId?: string;
  slug: string;
  status?: 'draft' | 'published' | 'archived';
  fields: Record<string, unknown>;
  externalIds?: Array<{ format: string; entity: string; id: string }>;
  baseChecksum?: string;
  createdAt?: string;
}
export interface TestMedia {
  id: string;
  filename: string;
  mimeType: string;
  bytes: Buffer;
  /** Put the file into media/files (default true). */
  withFile?: boolean;
}
export interface TestPackage {
  installationId?: string;
  collections: Array<{ name: string; fields: TestField[]; label?: string; singular?: string; entries: TestEntry[] }>;
  media?: TestMedia[];
  /** Changes a file's bytes after the checksums were written (a damaged package). */
  tamper?: { path: string; bytes: Buffer };
  version?: number;
}

export const ref = (collection: string, syncId: string) => ({ $ref: { collection, syncId } });
export const mediaRef = (id: string) => ({ $media: id });
export const checksumOf = (e: { slug: string; status?: string; fields: Record<string, unknown> }) =>
  entryChecksum(e.slug, e.status ?? 'published', e.fields);

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The package as a gzip tar (files at the archive's root, as the exporter writes them). */
export async function buildPackage(input: TestPackage): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'cms-test-package-'));
  try {
    const files: Array<{ path: string; size: number; sha256: string }> = [];
    const put = (path: string, body: Buffer | string) => {
      const full = join(dir, path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, body);
      const b = typeof body === 'string' ? Buffer.from(body) : body;
      files.push({ path, size: b.length, sha256: sha256(b) });
    };
    const collections = [];
    for (const c of input.collections) {
      put(
        `schemas/${c.name}.json`,
        JSON.stringify({ name: c.name, label: c.label ?? c.name, singular: c.singular ?? `${c.name}_item`, fields: c.fields, version: 1 }),
      );
      const lines = c.entries.map((e) => {
        const status = e.status ?? 'published';
        return JSON.stringify({
          syncId: e.syncId ?? randomUUID(),
          sourceId: e.sourceId ?? randomUUID(),
          slug: e.slug,
          status,
          createdAt: e.createdAt ?? '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-02T00:00:00.000Z',
          ...(e.externalIds ? { externalIds: e.externalIds } : {}),
          fields: e.fields,
          checksum: entryChecksum(e.slug, status, e.fields),
          ...(e.baseChecksum ? { baseChecksum: e.baseChecksum } : {}),
        });
      });
      put(`content/${c.name}.ndjson`, lines.length ? lines.join('\n') + '\n' : '');
      collections.push({ name: c.name, entries: c.entries.length, file: `content/${c.name}.ndjson`, schemaFile: `schemas/${c.name}.json` });
    }
    const media = input.media ?? [];
    let bytes = 0;
    const mediaLines = media.map((m) => {
      const sum = sha256(m.bytes);
      const withFile = m.withFile !== false;
      if (withFile) {
        put(`media/files/${sum}`, m.bytes);
        bytes += m.bytes.length;
      }
      return JSON.stringify({
        id: m.id,
        filename: m.filename,
        mimeType: m.mimeType,
        size: m.bytes.length,
        sha256: sum,
        ...(withFile ? { file: `media/files/${sum}` } : {}),
      });
    });
    put('media/manifest.ndjson', mediaLines.length ? mediaLines.join('\n') + '\n' : '');
    const manifest = {
      format: 'svelty-package',
      version: input.version ?? 1,
      createdAt: new Date().toISOString(),
      source: { installationId: input.installationId ?? 'source-installation', kernelVersion: '1.0.0', dialect: 'sqlite' },
      selection: { collections: input.collections.map((c) => c.name), includeMedia: media.length > 0 },
      collections,
      media: { records: media.length, file: 'media/manifest.ndjson', includesFiles: media.some((m) => m.withFile !== false), bytes },
      files,
    };
    writeFileSync(join(dir, 'checksums.sha256'), files.map((f) => `${f.sha256}  ${f.path}`).join('\n') + '\n');
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
    if (input.tamper) writeFileSync(join(dir, input.tamper.path), input.tamper.bytes);
    const archive = join(dir, '..', `${dir.split('/').pop()}.svelty-package`);
    const top = ['manifest.json', 'checksums.sha256', 'schemas', 'content', 'media'].filter((e) => existsSync(join(dir, e)));
    await tar.c({ gzip: true, cwd: dir, portable: true, file: archive }, top);
    const out = readFileSync(archive);
    rmSync(archive, { force: true });
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One ustar entry: a 512-byte header (type flag, optional link name) and the body padded to 512. */
export function tarEntry(name: string, body: Buffer | string = '', type = '0', linkname = ''): Buffer {
  const data = typeof body === 'string' ? Buffer.from(body) : body;
  const h = Buffer.alloc(512);
  const put = (s: string, off: number, len: number) => h.write(s.slice(0, len), off, len, 'latin1');
  const octal = (n: number, len: number) => n.toString(8).padStart(len - 1, '0');
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 7);
  put(octal(0, 8), 108, 7);
  put(octal(0, 8), 116, 7);
  put(octal(type === '0' ? data.length : 0, 12), 124, 11);
  put(octal(1700000000, 12), 136, 11);
  h.fill(' ', 148, 156);
  put(type, 156, 1);
  put(linkname, 157, 100);
  put('ustar\u000000', 257, 8);
  let sum = 0;
  for (const b of h) sum += b;
  put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
  const body512 = type === '0' ? Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]) : Buffer.alloc(0);
  return Buffer.concat([h, body512]);
}
export const tarGz = (...entries: Buffer[]) => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));

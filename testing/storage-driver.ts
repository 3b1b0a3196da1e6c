import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { StorageDriver } from '../plugins/media/public.js';
import { randomStream, readAll, sha256Of } from './storage-streams.js';

export const MiB = 1024 * 1024;

/** What a driver throws: each driver plugin has its own StorageError class, recognised by name and reason. */
export interface Refusal {
  name: string;
  reason: string;
  status: number;
  message: string;
}
export async function refusal(action: () => unknown): Promise<Refusal> {
  try {
    await action();
  } catch (err) {
    return err as Refusal;
  }
  return expect.fail('expected the driver to refuse');
}
export async function expectRefused(action: () => unknown, reason: string, status?: number): Promise<Refusal> {
  const err = await refusal(action);
  expect(err.name, err.message).to.equal('StorageError');
  expect(err.reason, err.message).to.equal(reason);
  if (status !== undefined) expect(err.status).to.equal(status);
  return err;
}

/** Paths no driver may accept: traversal (plain and percent-encoded), absolute, backslashes, NUL, empty and dot segments. */
export const BAD_PATHS = [
  '../escape.txt',
  'a/../../escape.txt',
  '..',
  'default/..',
  '/etc/passwd',
  '/tmp/escape.txt',
  'C:/Windows/escape.txt',
  'a\\..\\..\\escape.txt',
  '..\\escape.txt',
  '%2e%2e/escape.txt',
  '%2E%2E%2Fescape.txt',
  'a/%2e%2e%2f%2e%2e%2fescape.txt',
  'a%2fb.txt',
  '..%5cescape.txt',
  'a/b\u0000.txt',
  'escape.txt\u0000.png',
  '\u0000',
  '',
  'a//b.txt',
  'a/./b.txt',
  './a.txt',
  'a/b/',
  '.hidden',
  'a/.x.part',
  '\u202e../escape.txt',
  'a/\u202egnp.exe',
];

/** A check a driver adds around a generic one: called before it, the function it returns runs after it. */
export type AroundCheck<A extends unknown[] = []> = (...args: A) => () => void | Promise<void>;

export interface StorageDriverContractOptions {
  /** The driver's id (the suite is `driver <id>`, and its files go under `<id>-<random>/default/2026/11`). */
  id: string;
  /** The driver under test; called inside the tests, so it may read a kernel booted in a `before` hook. */
  driver(): StorageDriver;
  /** The URL `publicUrl(path)` must answer, from the path with each segment URI-encoded. */
  publicUrl(encoded: string): string;
  /** Replacing one path is atomic: of concurrent puts to one path, the file ends as exactly one of them. */
  atomicReplace: boolean;
  /** What this driver checks beyond the contract, where the storage behind it can be looked into. */
  checks?: {
    /** Around the 20 MiB stream; gets the file's path. */
    largeBody?: AroundCheck<[path: string]>;
    /** After the paths with spaces and unicode are stored and read back. */
    unicode?(files: string[]): void;
    /** Around the refused hostile paths (nothing may reach the storage). */
    refusedPaths?: AroundCheck;
  };
}

/**
 * Registers the storage driver contract as `describe('driver <id>')` in the calling suite: check, put,
 * head, get (ranges), replace and delete; a public URL that serves the file (remote drivers); 20 MiB
 * streamed in and out; spaces and unicode in paths; hostile paths refused before touching storage;
 * concurrent puts. Needs mocha and chai (dev dependencies).
 */
export function storageDriverContract(options: StorageDriverContractOptions): void {
  const { id } = options;
  describe(`driver ${id}`, function () {
    const base = () => `${id}-${randomUUID().slice(0, 8)}/default/2026/11`;

    it('reaches its storage (check)', async function () {
      await options.driver().check!();
    });
    it('stores, describes, reads whole and in ranges, replaces and deletes a file', () => storesAndDeletes(options.driver(), base()));
    it('answers a public URL where the file can be fetched', () => servesPublicUrl(options, base()));
    it('streams a 20 MiB body in and out (in parts for object stores, in chunks for the CDN)', () => streamsLargeBody(options, base()));
    it('keeps paths with spaces and unicode', () => keepsUnicodePaths(options, base()));
    it('refuses paths it cannot confine, before touching storage', () => refusesBadPaths(options));
    it('takes concurrent puts: different paths all land, one path ends whole with one of them', () => takesConcurrentPuts(options, base()));
  });
}

async function storesAndDeletes(d: StorageDriver, base: string): Promise<void> {
  const path = `${base}/${randomUUID()}-notes.txt`;
  const bytes = randomBytes(1000);
  const put = await d.put(path, bytes, { mimeType: 'text/plain', size: bytes.length });
  expect(put.size).to.equal(1000);
  expect(put.etag)
    .to.be.a('string')
    .and.match(/^"[^"]+"$/);
  const head = await d.head(path);
  expect(head).to.include({ size: 1000, etag: put.etag });
  expect((await readAll(await d.get(path))).equals(bytes)).to.equal(true);
  expect((await readAll(await d.get(path, { start: 0, end: 0 }))).equals(bytes.subarray(0, 1))).to.equal(true);
  expect((await readAll(await d.get(path, { start: 100, end: 199 }))).equals(bytes.subarray(100, 200))).to.equal(true);
  // An end past the file is cut to the file, as HTTP does; a start past it is refused.
  expect((await readAll(await d.get(path, { start: 990, end: 5000 }))).equals(bytes.subarray(990))).to.equal(true);
  await expectRefused(() => d.get(path, { start: 1000, end: 1010 }), 'INVALID_RANGE');
  await expectRefused(() => d.get(path, { start: 10, end: 5 }), 'INVALID_RANGE');

  const replacement = randomBytes(300);
  const again = await d.put(path, Readable.from([replacement.subarray(0, 100), replacement.subarray(100)]), {
    mimeType: 'text/plain',
  });
  expect(again.size).to.equal(300);
  expect(again.etag).to.not.equal(put.etag);
  // Same size, written straight after: the validator still changes (a client's cached copy is stale).
  const sameSize = randomBytes(300);
  const third = await d.put(path, sameSize);
  expect(third.etag).to.not.equal(again.etag);
  expect((await d.head(path))?.etag).to.equal(third.etag);
  await d.put(path, replacement);
  expect((await readAll(await d.get(path))).equals(replacement)).to.equal(true);
  expect((await d.head(path))?.size).to.equal(300);

  await d.delete(path);
  expect(await d.head(path)).to.equal(null);
  await expectRefused(() => d.get(path), 'NOT_FOUND', 404);
  await d.delete(path); // deleting what is gone is not an error
}

async function servesPublicUrl(options: StorageDriverContractOptions, base: string): Promise<void> {
  const d = options.driver();
  const path = `${base}/photo one.png`;
  const bytes = randomBytes(2048);
  await d.put(path, bytes, { mimeType: 'image/png' });
  const url = d.publicUrl(path);
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  expect(url).to.equal(options.publicUrl(encoded));
  if (d.kind === 'remote') {
    const res = await fetch(url);
    expect(res.status).to.equal(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).to.equal(true);
  }
}

async function streamsLargeBody(options: StorageDriverContractOptions, base: string): Promise<void> {
  const d = options.driver();
  const path = `${base}/${randomUUID()}-large.bin`;
  const afterwards = options.checks?.largeBody?.(path);
  const { stream, sha256 } = randomStream(20 * MiB);
  const put = await d.put(path, stream, { mimeType: 'application/octet-stream' });
  expect(put.size).to.equal(20 * MiB);
  const head = await d.head(path);
  expect(head?.size).to.equal(20 * MiB);
  const back = await sha256Of(await d.get(path));
  expect(back).to.deep.equal({ hex: await sha256, size: 20 * MiB });
  const tail = await readAll(await d.get(path, { start: 20 * MiB - 10, end: 20 * MiB - 1 }));
  expect(tail.length).to.equal(10);
  await afterwards?.();
  await d.delete(path);
}

async function keepsUnicodePaths(options: StorageDriverContractOptions, root: string): Promise<void> {
  const d = options.driver();
  const files = [`${root}/Ünïcödé folder/café 東京 ✓.png`, `${root}/notes with  spaces.txt`, `${root}/emoji 🎉/ok.pdf`];
  for (const [i, path] of files.entries()) {
    const bytes = Buffer.from(`file ${i}: ${path}`);
    await d.put(path, bytes, { mimeType: 'application/octet-stream' });
    expect((await d.head(path))?.size, path).to.equal(bytes.length);
    expect((await readAll(await d.get(path))).toString(), path).to.equal(bytes.toString());
  }
  options.checks?.unicode?.(files);
  for (const path of files) await d.delete(path);
}

async function refusesBadPaths(options: StorageDriverContractOptions): Promise<void> {
  const d = options.driver();
  const afterwards = options.checks?.refusedPaths?.();
  for (const path of BAD_PATHS) {
    const what = JSON.stringify(path);
    for (const op of [
      () => d.put(path, Buffer.from('x')),
      () => d.get(path),
      () => d.head(path),
      () => d.delete(path),
      () => d.publicUrl(path),
    ]) {
      const err = await expectRefused(op, 'INVALID_PATH', 400);
      expect(err.message, what).to.match(/^Invalid storage path/);
    }
  }
  await afterwards?.();
}

async function takesConcurrentPuts(options: StorageDriverContractOptions, root: string): Promise<void> {
  const d = options.driver();
  const bodies = Array.from({ length: 12 }, () => randomBytes(64 * 1024 + Math.floor(Math.random() * 1024)));
  await Promise.all(bodies.map((b, i) => d.put(`${root}/many-${i}.bin`, Readable.from([b.subarray(0, 1000), b.subarray(1000)]))));
  for (const [i, b] of bodies.entries())
    expect((await readAll(await d.get(`${root}/many-${i}.bin`))).equals(b), `many-${i}`).to.equal(true);
  // Replacing one path is atomic where the driver makes it so (local: rename; the CDN: one asset per
  // upload). For object stores it is the store's promise; s3rver writes objects in place, so not here.
  if (options.atomicReplace) {
    const contenders = bodies.slice(0, 4);
    await Promise.all(contenders.map((b) => d.put(`${root}/same.bin`, Readable.from([b]))));
    const final = await readAll(await d.get(`${root}/same.bin`));
    expect(
      contenders.some((b) => b.equals(final)),
      'the file is exactly one of the bodies',
    ).to.equal(true);
  }
  await Promise.all([...bodies.map((_, i) => d.delete(`${root}/many-${i}.bin`)), d.delete(`${root}/same.bin`)]);
}

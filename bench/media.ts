/**
 * Media cases of `npm run bench` (called at the end of bench/run.ts main, or run alone with
 * `node dist/bench/media.js`): (4) GET /files/<a 256 KiB local file> with and without If-None-Match
 * against a bare node:http server piping fs.createReadStream of the same bytes, in the same run;
 * (5) a 1 GiB upload (generated while sending, never held in memory) recording the server's peak RSS.
 * Bounded: BENCH_SECONDS (default 8 s) per load case, the upload gives up after 5 minutes.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { line, load, ratio, signIn, startChild, stop, streamUpload, type Figures } from './harness.js';
import { DIST_ROOT } from '../kernel/version.js';
import { benchKernelEnv } from './seed-posts.js';

const FILE_BYTES = 256 * 1024;
const UPLOAD_BYTES = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;

/** Resident set size of a process from /proc (kB -> bytes): current (VmRSS) and its high-water mark (VmHWM). */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Text content (so it passes the default allow list as text/plain), one reused buffer. */
function textBlock(bytes: number): Buffer {
  const block = Buffer.alloc(bytes);
  const sentence = Buffer.from('The quick brown fox jumps over the lazy dog; 0123456789.\n');
  for (let i = 0; i < bytes; i += sentence.length) sentence.copy(block, i, 0, Math.min(sentence.length, bytes - i));
  return block;
}

/** Streams a multipart upload of `size` bytes from one reused buffer, honouring backpressure. */
function uploadGenerated(url: string, cookie: string, size: number): Promise<{ status: number; body: string }> {
  const block = textBlock(MiB);
  return streamUpload(url, cookie, { name: 'bench-1gib.txt', size, timeoutMs: 5 * 60 * 1000 }, (req, tail) => {
    let sent = 0;
    const write = () => {
      while (sent < size) {
        const n = Math.min(block.length, size - sent);
        sent += n;
        if (!req.write(n === block.length ? block : block.subarray(0, n))) return void req.once('drain', write);
      }
      req.end(tail);
    };
    write();
  });
}

/** A bare node:http server answering every GET with fs.createReadStream of one file (the baseline). */
function serveBare(file: string): void {
  const size = readFileSync(file).length;
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': size });
    createReadStream(file).pipe(res);
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
}

export async function runMediaBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-media-'));
  const kernelEnv = {
    ...benchKernelEnv(dataDir),
    MEDIA_STORAGE_TYPE: 'local',
    MEDIA_MAX_UPLOAD_MB: '2048',
  };
  const sample = join(dataDir, 'sample-256k.txt');
  writeFileSync(sample, textBlock(FILE_BYTES));
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], kernelEnv, dataDir);
  const bare = await startChild([fileURLToPath(import.meta.url), '--bare-files', sample], {}, dataDir);
  try {
    const cookie = await signIn(kernel.url);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(readFileSync(sample))]), 'sample-256k.txt');
    const uploaded = await fetch(`${kernel.url}/api/media/upload`, { method: 'POST', headers: { cookie }, body: form });
    if (uploaded.status !== 201) throw new Error(`bench upload failed: ${uploaded.status} ${await uploaded.text()}`);
    const fileUrl = `${kernel.url}${((await uploaded.json()) as { data: { url: string } }).data.url}`;
    const etag = (await fetch(fileUrl)).headers.get('etag') ?? '';

    console.log(`\n## 4. GET /files/<256 KiB local file>: kernel against a bare node:http + fs.createReadStream server (same bytes)`);
    await load(fileUrl, { connections: 10 }); // warm-up, not reported
    const bareFig = await load(`${bare.url}/sample`);
    const full = await load(fileUrl);
    const conditional = await load(fileUrl, { headers: { 'if-none-match': etag } });
    const mbps = (f: Figures) => `   ${f.mbps} MiB/s`;
    line('bare fs.createReadStream', bareFig, mbps(bareFig));
    line('kernel /files/ (200, streamed)', full, mbps(full));
    line('kernel /files/ with If-None-Match (304)', conditional, mbps(conditional));
    console.log(`ratio /files/ 200/bare: throughput ${ratio(full.rps, bareFig.rps)}, p99 ${ratio(full.p99, bareFig.p99)}`);
    console.log(`ratio /files/ 304/bare: throughput ${ratio(conditional.rps, bareFig.rps)}, p99 ${ratio(conditional.p99, bareFig.p99)}`);

    console.log(`\n## 5. POST /api/media/upload of 1 GiB (generated while sending), server memory`);
    const pid = kernel.child.pid!;
    const before = memoryOf(pid);
    let peak = before.rss;
    const poll = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), 50);
    const started = performance.now();
    let result: { status: number; body: string };
    try {
      result = await uploadGenerated(kernel.url, cookie, UPLOAD_BYTES);
    } finally {
      clearInterval(poll);
    }
    const seconds = (performance.now() - started) / 1000;
    const after = memoryOf(pid);
    if (result.status !== 201) throw new Error(`1 GiB upload answered ${result.status}: ${result.body.slice(0, 300)}`);
    const mb = (n: number) => `${Math.round(n / MiB)} MiB`;
    console.log(
      `upload: 201 in ${seconds.toFixed(1)} s (${Math.round(UPLOAD_BYTES / MiB / seconds)} MiB/s end to end: receive, SHA-256 in the pool, store)`,
    );
    console.log(
      `server RSS before ${mb(before.rss)}, peak during the upload ${mb(peak)} (+${mb(peak - before.rss)}), after ${mb(after.rss)}; VmHWM since start ${mb(after.hwm)}`,
    );
  } finally {
    await Promise.all([stop(kernel.child), stop(bare.child)]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--bare-files' && process.argv[1] === fileURLToPath(import.meta.url)) serveBare(process.argv[3]!);
else if (process.argv[1] === fileURLToPath(import.meta.url)) await runMediaBench();

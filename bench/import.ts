/**
 * Import cases of `npm run bench` (called at the end of bench/run.ts main, or run alone with
 * `node dist/bench/import.js`): (6) a generated 20,000-post WXR and (7) a generated 200,000-row CSV,
 * each uploaded to POST /api/migration/import (scaffold on) and followed on its server-sent events.
 * Printed: entries per second, the server's peak RSS, and GET /api/health p99 during the import
 * against the same load before it (the baseline measured in the same run).
 * (8) the same kind of CSV imported alone, then again while two clients keep creating entries: the
 * import's entries/s with the writers against alone, and the writers' p99 (SQLite has one writer).
 * (6c) a Drupal JSON:API document of 9,000 articles (~66 MB: the real Umami articles of shared/fixtures, each
 * repeated with its own id, title and alias; BENCH_DRUPAL_NODES), one JSON value, streamed by the importer.
 * (6b) a realistic WordPress export (bench/wxr-realistic.ts: 20,000 posts with block-editor HTML, 15,000
 * comments, 100,000 postmeta; ~85 MB) the same way.
 * Bounded: each import gives up after 10 minutes; files are generated on disk (streamed, never held).
 * BENCH_IMPORT_CASES (e.g. "6,6b") runs only those cases.
 */
import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { signIn, startChild, stop } from './harness.js';
import { DIST_ROOT, PROJECT_ROOT } from '../kernel/version.js';
import { REALISTIC_WXR, realisticEntities, writeRealisticWxr } from './wxr-realistic.js';
import { benchKernelEnv } from './seed-posts.js';

const POSTS = Number(process.env.BENCH_WXR_POSTS ?? 20_000);
const ROWS = Number(process.env.BENCH_CSV_ROWS ?? 200_000);
const CONCURRENT_ROWS = Number(process.env.BENCH_CONCURRENT_ROWS ?? 50_000);
const DRUPAL_NODES = Number(process.env.BENCH_DRUPAL_NODES ?? 9_000);
const MiB = 1024 * 1024;
const TIMEOUT_MS = 10 * 60 * 1000;
const STEPS = process.env.BENCH_IMPORT_STEPS === '1';
const CASES = new Set((process.env.BENCH_IMPORT_CASES ?? '6,6b,6c,7,8').split(',').map((c) => c.trim()));

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

async function writeLines(path: string, head: string, count: number, row: (i: number) => string, tail = ''): Promise<void> {
  const out = createWriteStream(path);
  out.write(head);
  for (let i = 1; i <= count; i++) if (!out.write(row(i))) await once(out, 'drain');
  out.end(tail);
  await once(out, 'finish');
}

const WXR_HEAD = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Bench</title><link>http://bench.example</link><wp:wxr_version>1.2</wp:wxr_version>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login><![CDATA[bench]]></wp:author_login><wp:author_email><![CDATA[bench@example.com]]></wp:author_email><wp:author_display_name><![CDATA[Bench]]></wp:author_display_name></wp:author>
<wp:category><wp:term_id>1</wp:term_id><wp:category_nicename><![CDATA[news]]></wp:category_nicename><wp:category_parent><![CDATA[]]></wp:category_parent><wp:cat_name><![CDATA[News]]></wp:cat_name></wp:category>
`;
const wxrItem = (
  i: number,
) => `<item><title><![CDATA[Generated post ${i}]]></title><link>http://bench.example/?p=${i}</link><pubDate>Mon, 02 Nov 2026 10:00:00 +0000</pubDate><dc:creator><![CDATA[bench]]></dc:creator><guid isPermaLink="false">http://bench.example/?p=${i}</guid><description></description>
<content:encoded><![CDATA[<p>Paragraph one of post ${i}. The quick brown fox jumps over the lazy dog.</p><p>Paragraph two with <a href="http://bench.example/">a link</a>.</p>]]></content:encoded><excerpt:encoded><![CDATA[Excerpt ${i}]]></excerpt:encoded>
<wp:post_id>${i}</wp:post_id><wp:post_date><![CDATA[2026-11-02 10:00:00]]></wp:post_date><wp:post_date_gmt><![CDATA[2026-11-02 10:00:00]]></wp:post_date_gmt><wp:comment_status><![CDATA[open]]></wp:comment_status><wp:post_name><![CDATA[generated-post-${i}]]></wp:post_name><wp:status><![CDATA[publish]]></wp:status><wp:post_parent>0</wp:post_parent><wp:menu_order>0</wp:menu_order><wp:post_type><![CDATA[post]]></wp:post_type><wp:post_password><![CDATA[]]></wp:post_password><wp:is_sticky>0</wp:is_sticky>
<category domain="category" nicename="news"><![CDATA[News]]></category></item>
`;
const csvRow = (i: number) =>
  `${i},Item ${i},"Description of item ${i}, with a comma",${(i % 997) + 0.5},${i % 2 === 0 ? 'true' : 'false'},2026-11-${String((i % 28) + 1).padStart(2, '0')}\n`;

interface Completed {
  imported: number;
  failed: number;
  durationMs: number;
}

/** Uploads the file (streamed from disk) and reads the event stream to its `complete` event. */
async function importFile(
  url: string,
  cookie: string,
  path: string,
  filename: string,
  collection: string,
  pid?: number,
): Promise<Completed> {
  const started = performance.now();
  const form = new FormData();
  form.append('file', await openAsBlob(path), filename);
  form.append('scaffold', 'true');
  form.append('collection', collection);
  const res = await fetch(`${url}/api/migration/import`, {
    method: 'POST',
    headers: { cookie },
    body: form,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!res.ok || !res.body) throw new Error(`import of ${filename} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  let buffer = '';
  let lastStep = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      // BENCH_IMPORT_STEPS=1: when each step began (seconds since the upload started).
      if (STEPS && event === 'progress') {
        const step = (JSON.parse(data!) as { step: string }).step;
        if (step !== lastStep)
          console.log(
            `  ${((performance.now() - started) / 1000).toFixed(1)} s: ${(lastStep = step)}${pid ? ` (server RSS ${Math.round(rssOf(pid) / MiB)} MiB)` : ''}`,
          );
      }
      if (event === 'complete') return JSON.parse(data!) as Completed;
      if (event === 'error') throw new Error(`import of ${filename} failed: ${data}`);
    }
  }
  throw new Error(`import of ${filename}: the stream ended without a complete event`);
}

/** Health requests (2 connections) for the given time: p99 in ms. */
async function healthP99(url: string, seconds: number): Promise<number> {
  const r = await autocannon({ url: `${url}/api/health`, connections: 2, duration: seconds });
  return r.latency.p99;
}

async function importCase(
  title: string,
  url: string,
  cookie: string,
  pid: number,
  path: string,
  filename: string,
  collection: string,
  expected: number,
): Promise<void> {
  console.log(`\n## ${title} (${(statSync(path).size / MiB).toFixed(1)} MiB)`);
  const baseline = await healthP99(url, 3);
  const before = rssOf(pid);
  let peak = before;
  const poll = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  const started = performance.now();
  let seconds = 0;
  let during = 0;
  let done: Completed;
  try {
    const running = importFile(url, cookie, path, filename, collection, pid).then(
      (r) => ((seconds = (performance.now() - started) / 1000), r),
    );
    // Health latency while the import parses and writes (5 s; the import itself is timed on its own).
    during = await healthP99(url, 5);
    done = await running;
  } finally {
    clearInterval(poll);
  }
  if (done.imported !== expected) console.log(`WARNING: imported ${done.imported} of ${expected} (failed ${done.failed})`);
  console.log(
    `imported ${done.imported}, failed ${done.failed} in ${seconds.toFixed(1)} s: ${Math.round(done.imported / seconds)} entries/s (server-reported ${done.durationMs} ms)`,
  );
  console.log(
    `server RSS before ${Math.round(before / MiB)} MiB, peak ${Math.round(peak / MiB)} MiB (+${Math.round((peak - before) / MiB)} MiB)`,
  );
  console.log(
    `ratio health p99 during import / idle: ${baseline > 0 ? (during / baseline).toFixed(2) : 'n/a'} (${during} ms / ${baseline} ms)`,
  );
}

/** Entries created by `clients` sequential writers until `until` settles: latencies in ms. */
async function writers(
  url: string,
  cookie: string,
  clients: number,
  until: Promise<unknown>,
): Promise<{ latencies: number[]; errors: number }> {
  let done = false;
  void until.finally(() => (done = true)).catch(() => undefined);
  const latencies: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; !done && i < 100_000; i++) {
        const started = performance.now();
        const res = await fetch(`${url}/api/collections/benchnotes`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `note ${c}-${i}` }),
          signal: AbortSignal.timeout(30000),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        if (res.status !== 201) errors++;
      }
    }),
  );
  return { latencies, errors };
}

const p99 = (values: number[]) =>
  values.length ? [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))]! : 0;

async function concurrentWriterCase(url: string, cookie: string, dataDir: string): Promise<void> {
  console.log(`\n## 8. A ${CONCURRENT_ROWS}-row CSV import alone, then with two clients creating entries meanwhile (SQLite)`);
  const created = await fetch(`${url}/api/collections`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'benchnotes', fields: [{ name: 'title', type: 'text' }] }),
  });
  if (created.status !== 201) throw new Error(`benchnotes collection: ${created.status}`);
  const files = ['a', 'b'].map((k) => join(dataDir, `bench-concurrent-${k}.csv`));
  for (const [n, file] of files.entries())
    await writeLines(file, 'id,name,description,price,active,published\n', CONCURRENT_ROWS, (i) => csvRow(i + (n + 1) * 10_000_000));
  const timed = async (file: string, collection: string) => {
    const started = performance.now();
    const done = await importFile(url, cookie, file, `${collection}.csv`, collection);
    return { done, seconds: (performance.now() - started) / 1000 };
  };
  const alone = await timed(files[0]!, 'benchalone');
  const running = timed(files[1]!, 'benchbusy');
  const load = await writers(url, cookie, 2, running);
  const busy = await running;
  const rate = (r: { done: Completed; seconds: number }) => r.done.imported / r.seconds;
  console.log(`import alone: ${alone.done.imported} in ${alone.seconds.toFixed(1)} s: ${Math.round(rate(alone))} entries/s`);
  console.log(`import with writers: ${busy.done.imported} in ${busy.seconds.toFixed(1)} s: ${Math.round(rate(busy))} entries/s`);
  console.log(
    `writers: ${load.latencies.length} entries created (${load.errors} errors), p99 ${Math.round(p99(load.latencies))} ms, max ${Math.round(Math.max(0, ...load.latencies))} ms`,
  );
  console.log(
    `ratio import rate with writers / alone: ${(rate(busy) / rate(alone)).toFixed(2)} (target >= 0.5); write p99 ${Math.round(p99(load.latencies))} ms (target < 1000)`,
  );
}

/** A Drupal JSON:API document of `count` articles made from the Umami fixture's, written line by line. */
async function writeDrupalDocument(path: string, count: number): Promise<void> {
  const fixture = join(PROJECT_ROOT, 'test', 'fixtures', 'imports', 'php_cms', 'drupal-umami-articles-en.jsonapi.json');
  const templates = (JSON.parse(readFileSync(fixture, 'utf8')) as { data: Array<Record<string, any>> }).data;
  await writeLines(
    path,
    '{"jsonapi":{"version":"1.0"},"data":[\n',
    count,
    (i) => {
      const node = structuredClone(templates[i % templates.length]!);
      node.id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      node.attributes.title = `${node.attributes.title} (${i})`;
      if (node.attributes.path) node.attributes.path.alias = `${node.attributes.path.alias}-${i}`;
      return `${i > 1 ? ',' : ''}${JSON.stringify(node)}\n`;
    },
    ']}\n',
  );
}

export async function runImportBench(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-bench-import-'));
  const wxr = join(dataDir, 'bench-20k.xml');
  const csv = join(dataDir, 'bench-200k.csv');
  const realistic = join(dataDir, 'bench-realistic.xml');
  if (CASES.has('6')) await writeLines(wxr, WXR_HEAD, POSTS, wxrItem, '</channel></rss>\n');
  if (CASES.has('6b')) await writeRealisticWxr(realistic);
  const drupal = join(dataDir, 'bench-drupal.json');
  if (CASES.has('6c')) await writeDrupalDocument(drupal, DRUPAL_NODES);
  if (CASES.has('7')) await writeLines(csv, 'id,name,description,price,active,published\n', ROWS, csvRow);
  const kernelEnv = {
    ...benchKernelEnv(dataDir),
  };
  const kernel = await startChild([join(DIST_ROOT, 'kernel', 'cli.js'), 'start'], kernelEnv, dataDir);
  try {
    const cookie = await signIn(kernel.url);
    const pid = kernel.child.pid!;
    // The import cases: title, the file sent, its upload name, the collection, the entities expected.
    const imports: Array<[string, string, string, string, string, number]> = [
      ['6', `6. POST /api/migration/import: generated WXR, ${POSTS} posts`, wxr, 'bench-20k.xml', 'benchposts', POSTS + 2], // + its author and category
      [
        '6b',
        `6b. POST /api/migration/import: realistic WordPress export (${REALISTIC_WXR.posts} posts, ${REALISTIC_WXR.comments} comments, ${REALISTIC_WXR.postmeta} postmeta)`,
        realistic,
        'bench-realistic.xml',
        'benchreal',
        realisticEntities(REALISTIC_WXR),
      ],
      [
        '6c',
        `6c. POST /api/migration/import: Drupal JSON:API document, ${DRUPAL_NODES} articles`,
        drupal,
        'bench-drupal.json',
        'benchdrupal',
        DRUPAL_NODES,
      ],
      ['7', `7. POST /api/migration/import: generated CSV, ${ROWS} rows`, csv, 'bench-200k.csv', 'benchrows', ROWS],
    ];
    for (const [id, title, file, name, prefix, expected] of imports)
      if (CASES.has(id)) await importCase(title, kernel.url, cookie, pid, file, name, prefix, expected);
    if (CASES.has('8')) await concurrentWriterCase(kernel.url, cookie, dataDir);
  } finally {
    await stop(kernel.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runImportBench();

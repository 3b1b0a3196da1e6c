/**
 * Case 20 of the content-model group (bench/content-model.ts): BENCH_MODEL_BLOCK_ENTRIES (100) entries with a blocks
 * field of 50 blocks (hero and section, a section holding a cta component) created, updated, read one by one and listed
 * 20 at a time through the routes, while perf_hooks.monitorEventLoopDelay watches this process's event loop (the kernel
 * runs in it): the longest stall and p99, against the same requests on a collection whose field is `json` holding the
 * same array (stored the same way, no component checks). On SQLite, and on MariaDB when configured.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MARIADB_URL, startBenchKernel, type BenchKernel, type Db } from './content-model-kernel.js';
import { ratio } from './harness.js';

const ENTRIES = Number(process.env.BENCH_MODEL_BLOCK_ENTRIES ?? 100);

const body = (n: number) =>
  Array.from({ length: 50 }, (_, i) =>
    i % 2
      ? { __component: 'hero', heading: `Heading ${n}.${i}` }
      : {
          __component: 'section',
          title: `Section ${n}.${i} ${'lorem ipsum '.repeat(8)}`,
          cta: { url: `https://example.org/${n}/${i}`, label: 'Read more' },
        },
  );

async function seedSchema(k: BenchKernel): Promise<void> {
  await k.call('/api/components', {
    json: {
      name: 'cta',
      fields: [
        { name: 'url', type: 'url', required: true },
        { name: 'label', type: 'text' },
      ],
    },
  });
  await k.call('/api/components', { json: { name: 'hero', fields: [{ name: 'heading', type: 'text', required: true }] } });
  await k.call('/api/components', {
    json: {
      name: 'section',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'cta', type: 'component', component: 'cta' },
      ],
    },
  });
  await k.call('/api/collections', {
    json: {
      name: 'landings',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'blocks', components: ['hero', 'section'], max: 60 },
      ],
    },
  });
  await k.call('/api/collections', {
    json: {
      name: 'plainlandings',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'json' },
      ],
    },
  });
}

/**
 * Creates, updates, reads and lists ENTRIES entries of `collection` with the event loop watched: the longest stall and
 * p99 in ms, and which request the longest stall fell in (the histogram is read and reset after each request).
 */
async function watched(k: BenchKernel, collection: string): Promise<{ max: number; p99: number; seconds: number; worst: string }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  const all: number[] = [];
  let [max, worst] = [0, ''];
  const step = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    const value = await work();
    if (h.max / 1e6 > max) [max, worst] = [h.max / 1e6, what];
    all.push(h.percentile(99) / 1e6);
    h.reset();
    return value;
  };
  const started = performance.now();
  h.enable();
  for (let n = 0; n < ENTRIES; n++) {
    const made = await step('create', () =>
      k.call(`/api/collections/${collection}`, { json: { title: `Page ${n}`, body: body(n), status: 'published' } }),
    );
    await step('update', () => k.call(`/api/collections/${collection}/${made._id}`, { method: 'PATCH', json: { body: body(n + 1) } }));
    const read = await step('read', () => k.call(`/api/collections/${collection}/${made._id}`));
    if (read.body.length !== 50) throw new Error(`${collection}: ${read.body.length} blocks read back`);
    if (n % 5 === 4) await step('list of 20', () => k.call(`/api/collections/${collection}?limit=20&page=${1 + (n % 3)}`));
  }
  h.disable();
  return { max, p99: Math.max(...all), seconds: (performance.now() - started) / 1000, worst };
}

async function blocksCase(db: Db): Promise<void> {
  if (db === 'mariadb' && !MARIADB_URL) return console.log('mariadb: skipped (BENCH_MARIADB_URL / CMS_TEST_MARIADB_URL not set)');
  const k = await startBenchKernel(db);
  try {
    await seedSchema(k);
    await watched(k, 'plainlandings'); // warm-up, not reported (its entries stay: both collections then grow alike)
    await watched(k, 'landings');
    const plain = await watched(k, 'plainlandings');
    const blocks = await watched(k, 'landings');
    const fmt = (f: { max: number; p99: number; seconds: number; worst: string }) =>
      `event loop delay max ${f.max.toFixed(1)} ms (in a ${f.worst}), worst p99 of a request ${f.p99.toFixed(1)} ms (${f.seconds.toFixed(1)} s)`;
    console.log(`${db} blocks (50)       ${fmt(blocks)}`);
    console.log(`${db} json, same array  ${fmt(plain)}`);
    console.log(`${db} ratio blocks/json: max delay ${ratio(blocks.max, plain.max)}, time ${ratio(blocks.seconds, plain.seconds)}`);
  } finally {
    await k.close();
  }
}

export async function runBlocksBench(): Promise<void> {
  console.log(
    `## 20. ${ENTRIES} entries with a blocks field of 50 blocks created, updated, read and listed: the event loop's longest stall, against a json field with the same array`,
  );
  await blocksCase('sqlite');
  await blocksCase('mariadb');
  console.log();
}

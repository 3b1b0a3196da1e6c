/**
 * Case 22 of the content-model group (bench/content-model.ts; issue 36, "Speed"): a list of 20 entries in a
 * non-default locale (`de`, falling back to `en`) against the same list in the default locale, list cache off (every
 * list reads the database), on SQLite and on MariaDB when configured, through the in-process content client and through
 * HTTP. 100 articles with a localized title and body and a shared category; every other one has its own German
 * version (the rest fall back to English, field by field), so a page mixes both. BENCH_MODEL_ROUNDS (400) lists each
 * way, alternating. The ratio (locale / default) is the figure: at most 1.3 is the target.
 */
import { MARIADB_URL, ms, percentile, startBenchKernel, timed, type BenchKernel, type Db } from './content-model-kernel.js';
import { ratio } from './harness.js';

const ROUNDS = Number(process.env.BENCH_MODEL_ROUNDS ?? 400);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function seedArticles(k: BenchKernel): Promise<void> {
  await k.call('/api/locales', { json: { code: 'de', name: 'Deutsch', fallback: 'en' } });
  await k.call('/api/collections', {
    json: {
      name: 'articles',
      fields: [
        { name: 'title', type: 'text', localized: true },
        { name: 'body', type: 'richtext', localized: true },
        { name: 'category', type: 'text' },
      ],
    },
  });
  const entries = Array.from({ length: 100 }, (_, i) => ({
    title: `Article ${String(i).padStart(3, '0')}`,
    body: `<p>${'The quick brown fox jumps over the lazy dog. '.repeat(10)}</p>`,
    category: `Category ${i % 7}`,
    status: 'published',
  }));
  const made = (await k.call('/api/collections/articles/batch', { json: { entries } })) as { items: Array<{ _id: string }> };
  for (const [i, e] of made.items.entries()) {
    if (i % 2) continue;
    await k.call(`/api/collections/articles/${e._id}?locale=de`, {
      method: 'PATCH',
      json: {
        title: `Artikel ${String(i).padStart(3, '0')}`,
        ...(i % 4 ? {} : { body: `<p>${'Der schnelle braune Fuchs. '.repeat(12)}</p>` }),
      },
    });
    await k.call(`/api/collections/articles/${e._id}/status?locale=de`, { method: 'PATCH', json: { status: 'published' } });
  }
}

interface Side {
  service: number[];
  http: number[];
}

async function localeCase(db: Db): Promise<void> {
  if (db === 'mariadb' && !MARIADB_URL) return console.log('mariadb: skipped (BENCH_MARIADB_URL / CMS_TEST_MARIADB_URL not set)');
  const k = await startBenchKernel(db);
  try {
    await seedArticles(k);
    const client = k.kernel.container.resolve<(identity?: unknown) => any>('contentClient')();
    const articles = client.entries('articles');
    const plain: Side = { service: [], http: [] };
    const localized: Side = { service: [], http: [] };
    for (let i = 0; i < ROUNDS + 20; i++) {
      const page = 1 + (i % 5);
      const a = await timed(() => articles.list({ sort: 'category', limit: 20, page }));
      const b = await timed(() => articles.list({ sort: 'category', limit: 20, page, locale: 'de' }));
      const c = await timed(() => k.call(`/api/collections/articles?sort=category&limit=20&page=${page}`));
      const d = await timed(() => k.call(`/api/collections/articles?sort=category&limit=20&page=${page}&locale=de`));
      if (i < 20) continue; // warm-up
      plain.service.push(a);
      localized.service.push(b);
      plain.http.push(c);
      localized.http.push(d);
    }
    // What the German list answers: a sanity check that the bench measures what it says.
    const sample = (await k.call('/api/collections/articles?sort=category&limit=20&page=1&locale=de')) as {
      items: Array<{ _locale?: string; _fallbackFields?: string[] }>;
    };
    const fallingBack = sample.items.filter((e) => e._fallbackFields?.length).length;
    const viaClient = (await articles.list({ sort: 'category', limit: 20, page: 1, locale: 'de' })) as {
      items: Array<{ _locale?: string }>;
    };
    for (const via of ['service', 'http'] as const) {
      const [p, q] = [plain[via], localized[via]];
      console.log(
        `${db} ${via.padEnd(7)} default mean ${ms(mean(p))} p50 ${ms(percentile(p, 50))} p99 ${ms(percentile(p, 99))}` +
          ` | de mean ${ms(mean(q))} p50 ${ms(percentile(q, 50))} p99 ${ms(percentile(q, 99))}` +
          ` | ratio de/default: mean ${ratio(mean(q), mean(p))}, p50 ${ratio(percentile(q, 50), percentile(p, 50))}`,
      );
    }
    console.log(
      `${db} a German page of 20: ${sample.items.filter((e) => e._locale === 'de').length} answered in de over HTTP` +
        ` (${viaClient.items.filter((e) => e._locale === 'de').length} through the client), ${fallingBack} with fields from the fallback`,
    );
  } finally {
    await k.close();
  }
}

export async function runLocalesBench(): Promise<void> {
  console.log(
    `## 22. List of 20 in a non-default locale (de, falling back to en) against the same list in the default locale (list cache off, ${ROUNDS} lists each)`,
  );
  await localeCase('sqlite');
  await localeCase('mariadb');
  console.log();
}

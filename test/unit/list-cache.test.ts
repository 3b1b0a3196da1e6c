import { strict as assert } from 'node:assert';
import { CacheService } from '../../kernel/cache/cache-service.js';
import { createLogger } from '../../kernel/logger.js';
import { ListCache, type ListAnswer } from '../../plugins/content/list-cache.js';
import { REDIS_URL, uniqueName } from '../helpers/services.js';

/** The collection list cache on the real memory cache: stored bodies and tags, 304 before loading, invalidation. */
describe('unit: collection list cache', () => {
  let cache: CacheService;
  let lists: ListCache;
  let loads = 0;
  const load = (data: unknown) => async () => {
    loads++;
    return data;
  };
  const body = (a: ListAnswer) => (a.notModified ? assert.fail('expected a body') : a.body);
  beforeEach(async () => {
    cache = await CacheService.create({
      prefix: 'unit',
      defaultTtlSeconds: 60,
      limits: { maxBytes: 1024 * 1024, maxEntries: 1000, tenantShare: 0.5, localMaxBytes: 64 * 1024, redisTenantListBytes: 0 },
      logger: createLogger('silent'),
    });
    lists = new ListCache(cache, createLogger('silent'));
    loads = 0;
  });
  afterEach(() => cache.close());

  it('stores the serialised envelope and its tag: a hit sends the same bytes and tag without loading', async () => {
    const first = await lists.answer('default', 'posts', 'q1', '', load({ items: [{ title: 'é "quoted"' }], total: 1 }));
    assert.equal(first.cached, false);
    assert.equal(body(first), '{"success":true,"data":{"items":[{"title":"é \\"quoted\\""}],"total":1}}');
    assert.match(first.etag!, /^"[0-9a-f]{16}"$/);
    const again = await lists.answer('default', 'posts', 'q1', '', load('never'));
    // The miss also hands its loaded data to an in-process caller (`value`); a hit has the stored text only.
    const { value, ...stored } = first as typeof first & { value?: unknown };
    assert.deepEqual(value, { items: [{ title: 'é "quoted"' }], total: 1 });
    assert.deepEqual(again, { ...stored, cached: true });
    assert.equal(loads, 1);
  });

  it('answers a current If-None-Match with 304 before loading, even when the list itself is no longer stored', async () => {
    const first = await lists.answer('default', 'posts', 'q1', '', load({ items: [] }));
    // Drop the stored lists but not the version token (what an eviction of the list does).
    await cache.invalidatePrefix('collections', 'list:posts:');
    const fresh = new ListCache(cache, createLogger('silent')); // an instance whose local layer never saw it
    const conditional = await fresh.answer('default', 'posts', 'q1', `"other", ${first.etag}`, load('never'));
    assert.deepEqual(conditional, { notModified: true, etag: first.etag, cached: true });
    assert.equal(loads, 1);
    const stale = await fresh.answer('default', 'posts', 'q1', '"0000000000000000"', load({ items: [] }));
    assert.equal(stale.notModified, false);
    assert.equal(loads, 2);
  });

  it('after invalidate, the tag changes and the old one gets the new list', async () => {
    const first = await lists.answer('default', 'posts', 'q1', '', load({ n: 1 }));
    await lists.invalidate('default', 'posts');
    const next = await lists.answer('default', 'posts', 'q1', first.etag!, load({ n: 2 }));
    assert.equal(next.notModified, false);
    assert.equal(body(next), '{"success":true,"data":{"n":2}}');
    assert.notEqual(next.etag, first.etag);
  });

  it('tags differ per query key and per tenant; invalidating one collection leaves the others', async () => {
    const a = await lists.answer('default', 'posts', 'q1', '', load(1));
    const b = await lists.answer('default', 'posts', 'q2', '', load(2));
    const c = await lists.answer('acme', 'posts', 'q1', '', load(3));
    const d = await lists.answer('default', 'pages', 'q1', '', load(4));
    assert.equal(new Set([a.etag, b.etag, c.etag, d.etag]).size, 4);
    await lists.invalidate('default', 'posts');
    assert.equal((await lists.answer('default', 'pages', 'q1', d.etag!, load('never'))).notModified, true);
    assert.equal((await lists.answer('acme', 'posts', 'q1', c.etag!, load('never'))).notModified, true);
    assert.equal(loads, 4);
  });

  it('keeps its in-process layer within the configured bytes', async () => {
    const big = { text: 'x'.repeat(4000) };
    for (let i = 0; i < 100; i++) await lists.answer('default', 'posts', `q${i}`, '', load(big));
    const { local } = await cache.stats();
    assert.equal(local.maxBytes, 64 * 1024);
    assert.ok(local.bytes <= 64 * 1024, `${local.bytes} bytes`);
    assert.ok(local.evictions > 0);
  });

  it('with Redis, one instance writes at most the per-tenant budget of list bodies; beyond it lists stay in its own layer', async function () {
    if (!REDIS_URL) this.skip();
    const limits = { maxBytes: 1024 * 1024, maxEntries: 1000, tenantShare: 0.5, localMaxBytes: 64 * 1024, redisTenantListBytes: 3000 };
    const prefix = uniqueName('unitlists');
    const shared = await CacheService.create({
      redis: { url: REDIS_URL },
      prefix,
      defaultTtlSeconds: 60,
      limits,
      logger: createLogger('silent'),
    });
    try {
      const writer = new ListCache(shared, createLogger('silent'));
      const page = { text: 'x'.repeat(1000) }; // ~1 KiB of JSON a list
      for (let i = 0; i < 5; i++) await writer.answer('flood', 'posts', `q${i}`, '', load(page));
      await writer.answer('quiet', 'posts', 'q0', '', load(page));
      assert.equal(loads, 6);
      // Another instance (its own empty layer) finds in Redis what fitted the budget, per tenant.
      const reader = new ListCache(shared, createLogger('silent'));
      const found: boolean[] = [];
      for (let i = 0; i < 5; i++) found.push((await reader.answer('flood', 'posts', `q${i}`, '', load(page))).cached);
      assert.deepEqual(found, [true, true, false, false, false]);
      assert.equal(
        (await reader.answer('quiet', 'posts', 'q0', '', load(page))).cached,
        true,
        "the flood did not use the other tenant's budget",
      );
      // The writer still serves its own lists from its layer.
      assert.equal((await writer.answer('flood', 'posts', 'q4', '', load(page))).cached, true);
    } finally {
      await shared.close();
    }
  });
});

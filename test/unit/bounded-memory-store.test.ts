import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { BoundedMemoryStore } from '../../kernel/cache/bounded-memory-store.js';
import { CacheService } from '../../kernel/cache/cache-service.js';
import { createLogger } from '../../kernel/logger.js';

/** Keys `<tenant>/<name>`; every value counts its length in bytes (no overhead), so the figures are exact. */
function store(maxBytes: number, opts: { maxEntries?: number; tenantShare?: number } = {}) {
  return new BoundedMemoryStore<string>({
    maxBytes,
    maxEntries: opts.maxEntries ?? 1000,
    tenantShare: opts.tenantShare ?? 1,
    tenantOf: (key) => key.split('/')[0]!,
    sizeOf: (_key, value) => value.length,
    sweepWhenFullMs: 0,
  });
}
const kb = (n: number) => 'x'.repeat(n * 100);

/** The bounded in-memory store behind the memory cache: bytes, LRU order, per-tenant shares, expiry. */
describe('unit: bounded memory store', () => {
  it('counts bytes and never holds more than its bound: the least recently used entries go first', () => {
    const s = store(1000);
    for (const k of ['a', 'b', 'c', 'd']) s.set(`t/${k}`, kb(2)); // 800 bytes
    assert.equal(s.bytes, 800);
    s.get('t/a'); // a is now the most recently used
    s.set('t/e', kb(3)); // 1100 > 1000: b, the least recently used, makes room
    assert.deepEqual([...s.keys()], ['t/c', 't/d', 't/a', 't/e']);
    assert.equal(s.bytes, 900);
    assert.equal(s.evictions, 1);
    s.set('t/f', kb(4)); // c and d go
    assert.deepEqual([...s.keys()], ['t/a', 't/e', 't/f']);
    assert.equal(s.bytes, 900);
    assert.equal(s.get('t/b'), undefined);
    assert.equal(s.get('t/a'), kb(2));
  });

  it('replacing a value recounts its bytes; delete and clear release them', () => {
    const s = store(1000);
    s.set('t/a', kb(5));
    s.set('t/a', kb(1));
    assert.equal(s.bytes, 100);
    assert.equal(s.size, 1);
    s.set('t/b', kb(2));
    assert.equal(s.delete('t/a'), true);
    assert.equal(s.bytes, 200);
    s.clear();
    assert.equal(s.bytes, 0);
    assert.equal(s.size, 0);
  });

  it('bounds the number of entries too', () => {
    const s = store(1_000_000, { maxEntries: 3 });
    for (let i = 0; i < 10; i++) s.set(`t/${i}`, 'v');
    assert.deepEqual([...s.keys()], ['t/7', 't/8', 't/9']);
  });

  it('does not keep a value larger than a tenant share', () => {
    const s = store(1000, { tenantShare: 0.5 });
    s.set('t/small', kb(1));
    s.set('t/huge', kb(6));
    assert.equal(s.has('t/huge'), false);
    assert.equal(s.get('t/small'), kb(1));
  });

  it('a tenant flooding unique keys evicts only its own entries once it holds its share; alone, it may use the whole store', () => {
    const s = store(2000, { tenantShare: 0.25 });
    for (let i = 0; i < 10; i++) s.set(`quiet/${i}`, kb(1)); // 1000 bytes of another tenant
    for (let i = 0; i < 500; i++) s.set(`flood/${i}`, kb(1));
    for (let i = 0; i < 10; i++) assert.equal(s.get(`quiet/${i}`), kb(1), `quiet/${i} survived the flood`);
    assert.ok(s.bytes <= 2000);
    // The flooder took the free room, then (over its 500-byte share) made room from its own entries only.
    assert.ok(s.tenantBytes('flood') >= 500 && s.tenantBytes('flood') <= 1000, `flood holds ${s.tenantBytes('flood')}`);
    assert.equal(s.get('flood/499'), kb(1), 'its newest entry is kept');
    assert.equal(s.get('flood/0'), undefined, 'its oldest went');

    const alone = store(2000, { tenantShare: 0.25 });
    for (let i = 0; i < 500; i++) alone.set(`only/${i}`, kb(1));
    assert.equal(alone.bytes, 2000, 'a tenant alone fills the store');
  });

  it('below its share, a tenant makes room from everyone’s least recently used entries', () => {
    const s = store(1000, { tenantShare: 0.5 });
    for (let i = 0; i < 10; i++) s.set(`big/${i}`, kb(1)); // full, all of tenant big (over its share)
    s.set('small/a', kb(2)); // small is within its share: big's two oldest go
    assert.equal(s.get('small/a'), kb(2));
    assert.equal(s.get('big/0'), undefined);
    assert.equal(s.get('big/1'), undefined);
    assert.equal(s.get('big/2'), kb(1));
  });

  it('an expired entry is not returned, and expired entries are swept before live ones are evicted', async () => {
    const s = store(1000);
    s.set('t/short', kb(5), 20);
    s.set('t/long', kb(4), 60_000);
    assert.equal(s.get('t/short'), kb(5));
    await sleep(40);
    assert.equal(s.has('t/short'), false);
    s.set('t/other', kb(5), 20);
    await sleep(40);
    s.set('t/new', kb(5)); // room comes from the expired entry, not from t/long
    assert.equal(s.get('t/long'), kb(4));
    assert.equal(s.get('t/new'), kb(5));
    assert.equal(s.evictions, 0);
    s.set('t/soon', 'v', 1);
    await sleep(5);
    assert.equal(s.sweep(), 1);
    assert.equal(s.bytes, 900);
  });

  it('serves as the memory cache’s Keyv store: bounded, per tenant, prefix invalidation and figures still work', async () => {
    const cache = await CacheService.create({
      prefix: 'unit',
      defaultTtlSeconds: 60,
      limits: { maxBytes: 64 * 1024, maxEntries: 1000, tenantShare: 0.25, localMaxBytes: 1024, redisTenantListBytes: 0 },
      logger: createLogger('silent'),
    });
    try {
      for (let i = 0; i < 20; i++) await cache.set('lists', `posts:${i}`, kb(5), { tenant: 'quiet' });
      for (let i = 0; i < 2000; i++) await cache.set('lists', `posts:${i}`, kb(5), { tenant: 'flood' });
      for (let i = 0; i < 20; i++) assert.equal(await cache.get('lists', `posts:${i}`, { tenant: 'quiet' }), kb(5));
      const stats = await cache.stats();
      assert.ok(stats.memory, 'the memory backend reports its bound');
      assert.ok(stats.memory.bytes <= 64 * 1024);
      assert.equal(stats.memory.maxBytes, 64 * 1024);
      assert.ok(stats.memory.evictions > 1900);
      assert.equal(stats.byTenant.quiet!.size, 20);
      assert.equal(await cache.invalidatePrefix('lists', 'posts:', { tenant: 'quiet' }), 20);
      assert.equal(await cache.get('lists', 'posts:1', { tenant: 'quiet' }), undefined);
      assert.ok((await cache.get('lists', 'posts:1999', { tenant: 'flood' })) !== undefined);
    } finally {
      await cache.close();
    }
  });
});

import { strict as assert } from 'node:assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { CacheService } from '../../kernel/cache/cache-service.js';
import { createLogger } from '../../kernel/logger.js';

/** The in-memory cache service (Keyv over a Map): namespacing, TTL, getOrSet, prefix invalidation, stats. */
describe('unit: cache service (memory)', () => {
  let cache: CacheService;
  beforeEach(async () => {
    cache = await CacheService.create({ prefix: 'unit', defaultTtlSeconds: 60, logger: createLogger('silent') });
  });
  afterEach(() => cache.close());

  it('returns what was set and undefined for a miss', async () => {
    assert.equal(cache.backend, 'memory');
    assert.equal(await cache.get('pages', 'home'), undefined);
    await cache.set('pages', 'home', { title: 'Home' });
    assert.deepEqual(await cache.get('pages', 'home'), { title: 'Home' });
  });

  it('keeps categories and tenants apart', async () => {
    await cache.set('pages', 'k', 'a-default');
    await cache.set('pages', 'k', 'a-acme', { tenant: 'acme' });
    await cache.set('lists', 'k', 'b-default');
    assert.equal(await cache.get('pages', 'k'), 'a-default');
    assert.equal(await cache.get('pages', 'k', { tenant: 'acme' }), 'a-acme');
    assert.equal(await cache.get('lists', 'k'), 'b-default');
    assert.equal(await cache.get('lists', 'k', { tenant: 'acme' }), undefined);
  });

  it('expires a value after its TTL', async () => {
    await cache.set('short', 'k', 'v', { ttlSeconds: 0.05 });
    assert.equal(await cache.get('short', 'k'), 'v');
    await sleep(80);
    assert.equal(await cache.get('short', 'k'), undefined);
  });

  it('delete() removes one key and says whether it existed', async () => {
    await cache.set('pages', 'a', 1);
    await cache.set('pages', 'b', 2);
    assert.equal(await cache.delete('pages', 'a'), true);
    assert.equal(await cache.delete('pages', 'a'), false);
    assert.equal(await cache.get('pages', 'a'), undefined);
    assert.equal(await cache.get('pages', 'b'), 2);
  });

  it('getOrSet() loads once and then serves the stored value; an undefined load is not stored', async () => {
    let loads = 0;
    const load = async () => ++loads;
    assert.equal(await cache.getOrSet('lists', 'k', load), 1);
    assert.equal(await cache.getOrSet('lists', 'k', load), 1);
    assert.equal(loads, 1);
    let undefinedLoads = 0;
    const nothing = async () => {
      undefinedLoads++;
      return undefined;
    };
    await cache.getOrSet('lists', 'none', nothing);
    await cache.getOrSet('lists', 'none', nothing);
    assert.equal(undefinedLoads, 2);
  });

  it('invalidatePrefix() removes only the matching keys of that category and tenant', async () => {
    await cache.set('lists', 'posts:1', 1);
    await cache.set('lists', 'posts:2', 2);
    await cache.set('lists', 'pages:1', 3);
    await cache.set('lists', 'posts:1', 4, { tenant: 'acme' });
    await cache.set('other', 'posts:1', 5);
    assert.equal(await cache.invalidatePrefix('lists', 'posts:'), 2);
    assert.equal(await cache.get('lists', 'posts:1'), undefined);
    assert.equal(await cache.get('lists', 'posts:2'), undefined);
    assert.equal(await cache.get('lists', 'pages:1'), 3);
    assert.equal(await cache.get('lists', 'posts:1', { tenant: 'acme' }), 4);
    assert.equal(await cache.get('other', 'posts:1'), 5);
  });

  it('counts hits, misses, sets and deletes per category and tenant, and the live size', async () => {
    await cache.set('pages', 'a', 1);
    await cache.set('pages', 'b', 2, { tenant: 'acme' });
    await cache.get('pages', 'a');
    await cache.get('pages', 'zzz');
    await cache.get('pages', 'a');
    await cache.delete('pages', 'a');
    const stats = await cache.stats();
    assert.equal(stats.backend, 'memory');
    assert.deepEqual(
      {
        hits: stats.overall.hits,
        misses: stats.overall.misses,
        sets: stats.overall.sets,
        deletes: stats.overall.deletes,
        size: stats.overall.size,
      },
      { hits: 2, misses: 1, sets: 2, deletes: 1, size: 1 },
    );
    assert.equal(stats.overall.hitRate, 0.6667);
    assert.equal(stats.overall.totalOperations, 6);
    assert.equal(stats.byCategory.pages?.size, 1);
    assert.equal(stats.byTenant.acme?.sets, 1);
    assert.equal(stats.byTenant.acme?.size, 1);
    assert.equal(stats.byTenant.default?.size, 0);
  });

  it('refuses a category or tenant that would break the key namespace', async () => {
    await assert.rejects(cache.set('bad:category', 'k', 1), TypeError);
    await assert.rejects(cache.get('pages', 'k', { tenant: 'a:b' }), TypeError);
  });

  it('check() answers for the memory backend', async () => {
    assert.deepEqual(await cache.check(), { backend: 'memory' });
  });
});

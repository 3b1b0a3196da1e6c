import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { createClient } from 'redis';
import { CacheService } from '../../kernel/cache/cache-service.js';
import { createLogger } from '../../kernel/logger.js';
import { CACHE_VARIANTS, REDIS_URL, uniqueName } from '../helpers/services.js';
import { requireVariant } from '../helpers/services.js';
import { rejectionOf } from '../helpers/assertions.js';

const logger = createLogger('silent');

for (const variant of CACHE_VARIANTS) {
  describe(`cache (${variant.name})`, function () {
    this.timeout(20000);
    const opened: CacheService[] = [];
    const prefixes = new Set<string>();

    async function open(prefix = uniqueName('cachetest')): Promise<CacheService> {
      prefixes.add(prefix);
      const cache = await CacheService.create({
        redis: variant.name === 'redis' ? { url: REDIS_URL } : undefined,
        prefix,
        defaultTtlSeconds: 60,
        logger,
      });
      opened.push(cache);
      return cache;
    }

    before(function () {
      requireVariant(this, variant);
    });

    after(async function () {
      for (const cache of opened.splice(0)) await cache.close();
      if (variant.name !== 'redis' || !prefixes.size) return;
      // Leave nothing behind in the shared Redis (the keys would expire anyway).
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      try {
        for (const prefix of prefixes) {
          for await (const keys of client.scanIterator({ MATCH: `${prefix}-cache:*` })) if (keys.length) await client.del(keys);
        }
      } finally {
        await client.close();
      }
    });

    it('stores, reads and deletes values on the configured backend', async function () {
      const cache = await open();
      expect(cache.backend).to.equal(variant.name);
      const value = { title: 'Hello', tags: ['a', 'b'], n: 3 };
      await cache.set('collections', 'posts:1', value);
      expect(await cache.get('collections', 'posts:1')).to.deep.equal(value);
      expect(await cache.get('collections', 'posts:1', { tenant: 'acme' })).to.equal(undefined);
      expect(await cache.get('pages', 'posts:1')).to.equal(undefined);
      expect(await cache.delete('collections', 'posts:1')).to.equal(true);
      expect(await cache.delete('collections', 'posts:1')).to.equal(false);
      expect(await cache.get('collections', 'posts:1')).to.equal(undefined);
    });

    it('counts hits, misses, sets and deletes per category, per tenant and overall, with hit rate and size', async function () {
      const cache = await open();
      await cache.set('collections', 'posts:1', 'p1');
      await cache.set('collections', 'posts:2', 'p2', { tenant: 'acme' });
      await cache.set('pages', 'home', 'h');
      expect(await cache.get('collections', 'posts:1')).to.equal('p1');
      expect(await cache.get('collections', 'posts:1')).to.equal('p1');
      expect(await cache.get('collections', 'missing')).to.equal(undefined);
      expect(await cache.get('pages', 'home')).to.equal('h');
      expect(await cache.get('pages', 'nope', { tenant: 'acme' })).to.equal(undefined);
      expect(await cache.delete('pages', 'home')).to.equal(true);
      expect(await cache.delete('pages', 'home')).to.equal(false); // nothing deleted, not counted

      const stats = await cache.stats();
      expect(stats.backend).to.equal(variant.name);
      expect(stats.byCategory).to.deep.equal({
        collections: { hits: 2, misses: 1, sets: 2, deletes: 0, size: 2, hitRate: 0.6667, totalOperations: 5 },
        pages: { hits: 1, misses: 1, sets: 1, deletes: 1, size: 0, hitRate: 0.5, totalOperations: 4 },
      });
      expect(stats.byTenant).to.deep.equal({
        acme: { hits: 0, misses: 1, sets: 1, deletes: 0, size: 1, hitRate: 0, totalOperations: 2 },
        default: { hits: 3, misses: 1, sets: 2, deletes: 1, size: 1, hitRate: 0.75, totalOperations: 7 },
      });
      expect(stats.overall).to.deep.equal({ hits: 3, misses: 2, sets: 3, deletes: 1, size: 2, hitRate: 0.6, totalOperations: 9 });
      expect(stats.timestamp).to.be.a('number');
    });

    it('expires a key after its TTL', async function () {
      const cache = await open();
      await cache.set('sessions', 'short', 'gone soon', { ttlSeconds: 1 });
      await cache.set('sessions', 'long', 'stays');
      expect(await cache.get('sessions', 'short')).to.equal('gone soon');
      const deadline = Date.now() + 3000;
      let value: unknown = 'gone soon';
      while (value !== undefined && Date.now() < deadline) {
        await sleep(100);
        value = await cache.get('sessions', 'short');
      }
      expect(value, 'expired within the bounded wait').to.equal(undefined);
      expect(await cache.get('sessions', 'long')).to.equal('stays');
      expect((await cache.stats()).byCategory.sessions!.size).to.equal(1);
    });

    it('getOrSet loads once and then serves the cached value', async function () {
      const cache = await open();
      let loads = 0;
      const load = async () => {
        loads++;
        return { computed: loads };
      };
      expect(await cache.getOrSet('reports', 'monthly', load, { tenant: 'acme' })).to.deep.equal({ computed: 1 });
      expect(await cache.getOrSet('reports', 'monthly', load, { tenant: 'acme' })).to.deep.equal({ computed: 1 });
      expect(await cache.getOrSet('reports', 'monthly', load, { tenant: 'acme' })).to.deep.equal({ computed: 1 });
      expect(loads).to.equal(1);
      // Another tenant has its own entry.
      expect(await cache.getOrSet('reports', 'monthly', load, { tenant: 'other' })).to.deep.equal({ computed: 2 });
      expect(loads).to.equal(2);
      const { byCategory } = await cache.stats();
      expect(byCategory.reports).to.include({ hits: 2, misses: 2, sets: 2, size: 2 });
    });

    it('invalidatePrefix removes every key of the tenant and category with the prefix and nothing else', async function () {
      const cache = await open();
      const keep: Array<[string, string, string | undefined]> = [
        ['collections', 'pages:1', undefined],
        ['collections', 'postscript', undefined],
        ['collections', 'posts:1', 'acme'],
        ['collections', 'posts:2', 'acme'],
        ['other', 'posts:1', undefined],
      ];
      const doomed = ['posts:1', 'posts:2', 'posts:drafts:3'];
      for (const key of doomed) await cache.set('collections', key, key);
      for (const [category, key, tenant] of keep) await cache.set(category, key, `${category}/${tenant ?? 'default'}/${key}`, { tenant });

      expect(await cache.invalidatePrefix('collections', 'posts:')).to.equal(3);
      for (const key of doomed) expect(await cache.get('collections', key), key).to.equal(undefined);
      for (const [category, key, tenant] of keep) {
        expect(await cache.get(category, key, { tenant }), `${category} ${tenant} ${key}`).to.equal(
          `${category}/${tenant ?? 'default'}/${key}`,
        );
      }
      const stats = await cache.stats();
      expect(stats.overall.size).to.equal(keep.length);
      expect(stats.byCategory.collections).to.include({ deletes: 3, size: 4 });
      // Nothing left to remove; a tenant's prefix only touches that tenant.
      expect(await cache.invalidatePrefix('collections', 'posts:')).to.equal(0);
      expect(await cache.invalidatePrefix('collections', '', { tenant: 'acme' })).to.equal(2);
      expect(await cache.get('collections', 'pages:1')).to.equal('collections/default/pages:1');
    });

    it('rejects a category or tenant containing ":"', async function () {
      const cache = await open();
      for (const attempt of [
        () => cache.set('bad:category', 'k', 1),
        () => cache.get('collections', 'k', { tenant: 'acme:evil' }),
        () => cache.delete('a:b', 'k'),
        () => cache.invalidatePrefix('collections', '', { tenant: 'x:y' }),
        () => cache.getOrSet('c:d', 'k', async () => 1),
      ]) {
        expect(await rejectionOf(attempt())).to.be.instanceOf(TypeError);
      }
      expect((await cache.stats()).overall).to.include({ hits: 0, misses: 0, sets: 0, deletes: 0, size: 0 });
    });

    if (variant.name === 'redis') {
      it('shares keys and invalidations between two instances on the same prefix, not with another prefix', async function () {
        const prefix = uniqueName('cachetest');
        const a = await open(prefix);
        const b = await open(prefix);
        const stranger = await open();

        await a.set('collections', 'posts:1', { v: 1 });
        await a.set('collections', 'posts:2', { v: 2 });
        await a.set('collections', 'pages:1', { v: 3 });
        expect(await b.get('collections', 'posts:1')).to.deep.equal({ v: 1 });
        expect(await stranger.get('collections', 'posts:1')).to.equal(undefined);
        expect((await b.stats()).byCategory.collections!.size).to.equal(3);

        expect(await a.invalidatePrefix('collections', 'posts:')).to.equal(2);
        expect(await b.get('collections', 'posts:1')).to.equal(undefined);
        expect(await b.get('collections', 'posts:2')).to.equal(undefined);
        expect(await b.get('collections', 'pages:1')).to.deep.equal({ v: 3 });

        // And the other way round, for a single delete and for a value written through B.
        await b.set('collections', 'posts:3', 'from b');
        expect(await a.get('collections', 'posts:3')).to.equal('from b');
        expect(await b.delete('collections', 'pages:1')).to.equal(true);
        expect(await a.get('collections', 'pages:1')).to.equal(undefined);
      });
    }
  });
}

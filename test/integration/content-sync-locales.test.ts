import { expect } from 'chai';
import { join } from 'node:path';
import { QueryTypes, Sequelize } from 'sequelize';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { startChildInstance, type ChildInstance } from '../helpers/content-sync-rig.js';
import { MARIADB_URL, REDIS_URL } from '../helpers/services.js';

/**
 * Issue 36, content sync of localised entries between two real instances (A here, B a child process), as
 * content-sync.test.ts does: an entry's versions in other locales travel with it on push and pull (created,
 * changed, deleted), values, statuses and when each locale's values last changed (`_localeUpdatedAt`) exactly.
 */
const PAGES = {
  name: 'lposts',
  fields: [
    { name: 'title', type: 'text', required: true, localized: true },
    { name: 'seo', type: 'json', localized: true },
    { name: 'price', type: 'number' },
  ],
};
type Entry = Record<string, any>;

interface Api {
  call(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }>;
}

async function ok(api: Api, method: string, path: string, json?: unknown): Promise<any> {
  const res = await api.call(method, path, json);
  expect([200, 201], `${method} ${path}: ${JSON.stringify(res.body)}`).to.include(res.status);
  return res.body?.data;
}

/** Every entry (by syncId) as read in each locale: values, status, the locales it has and when each last changed. */
async function readAll(api: Api): Promise<Entry[]> {
  const list = (await ok(api, 'GET', '/api/collections/lposts?limit=100&sort=price')).items as Entry[];
  const out: Entry[] = [];
  for (const e of list)
    for (const locale of ['en', 'de', 'fr', '*']) {
      const x = await ok(api, 'GET', `/api/collections/lposts/${e._id}?locale=${locale}`);
      out.push({
        syncId: x.syncId,
        locale,
        title: x.title,
        seo: x.seo,
        price: x.price,
        status: x.status,
        _locales: x._locales,
        // When each locale's values last changed (the "out of date" mark) travels too.
        _localeUpdatedAt: x._localeUpdatedAt,
        createdAt: x.createdAt,
      });
    }
  return out;
}

const variants = [
  { name: 'A and B on SQLite', a: {} as Parameters<typeof startTestKernel>[0], available: true },
  {
    name: 'A on MariaDB + Redis, B on SQLite',
    a: { db: 'mariadb', cache: 'redis' } as Parameters<typeof startTestKernel>[0],
    available: Boolean(MARIADB_URL && REDIS_URL),
  },
];

for (const variant of variants) {
  describe(`content sync: entries' versions in other locales (${variant.name})`, function () {
    this.timeout(180000);
    let a: TestKernel;
    let b: ChildInstance;
    let A: Api;
    let B: Api;
    let channelId: string;
    let id = '';

    before(async function () {
      if (!variant.available) return this.skip();
      [a, b] = await Promise.all([
        startTestKernel({
          ...variant.a,
          plugins: [fixturePlugin('test-identity')],
          config: { outbound: { allowPrivate: true } } as never,
        }),
        startChildInstance(),
      ]);
      A = {
        async call(method, path, json) {
          const res = await a.request(path, { method, identity: 'admin', ...(json !== undefined ? { json } : {}) });
          const text = await res.text();
          return { status: res.status, body: text ? JSON.parse(text) : null };
        },
      };
      B = { call: (method, path, json) => b.as('admin', method, path, json) };
      for (const api of [A, B]) {
        for (const code of ['de', 'fr']) await ok(api, 'POST', '/api/locales', { code });
        await ok(api, 'POST', '/api/collections', PAGES);
      }
      const key = (await b.apiKey(['content:read', 'content:sync'])).key;
      channelId = (await ok(A, 'POST', '/api/content-sync/channels', { name: 'B', url: b.url, apiKey: key })).channelId;
    });
    after(async () => {
      await Promise.all([a?.close(), b?.stop()]);
    });

    const sync = async (direction: 'push' | 'pull', expected: Record<string, number>, extra: Record<string, unknown> = {}) => {
      const p = await ok(A, 'POST', '/api/content-sync/plan', { channelId, direction, ...extra });
      expect(p.blockedReasons, JSON.stringify(p)).to.deep.equal([]);
      expect(p.summary, JSON.stringify(p)).to.include(expected);
      const done = await A.call('POST', `/api/content-sync/${direction}`, { planId: p.planId, confirmed: extra.mode === 'mirror' });
      expect(done.body?.data?.outcome, JSON.stringify(done.body)).to.equal('success');
    };

    it('push creates the entries on B with every version; a repeated push plans nothing', async function () {
      id = (await ok(A, 'POST', '/api/collections/lposts', { title: 'Hello', seo: { k: 1 }, price: 1, status: 'published' }))._id;
      await ok(A, 'PATCH', `/api/collections/lposts/${id}?locale=de`, { title: 'Hallo', seo: { k: 'ä' } });
      await ok(A, 'PATCH', `/api/collections/lposts/${id}/status?locale=de`, { status: 'published' });
      await ok(A, 'PATCH', `/api/collections/lposts/${id}?locale=fr`, { title: 'Bonjour' });
      await ok(A, 'POST', '/api/collections/lposts', { title: 'Only English', price: 2 });
      await sync('push', { created: 2, updated: 0 });
      expect(await readAll(B)).to.deep.equal(await readAll(A));
      await sync('push', { created: 0, updated: 0 });
    });

    it('a changed translation travels on push, one changed on B on pull; a deleted version is deleted', async function () {
      await ok(A, 'PATCH', `/api/collections/lposts/${id}?locale=fr`, { title: 'Salut' });
      await ok(A, 'PATCH', `/api/collections/lposts/${id}/status?locale=fr`, { status: 'published' });
      await sync('push', { created: 0, updated: 1 });
      expect(await readAll(B)).to.deep.equal(await readAll(A));

      const onB = (await ok(B, 'GET', '/api/collections/lposts?sort=price')).items[0];
      await ok(B, 'PATCH', `/api/collections/lposts/${onB._id}?locale=de`, { seo: { k: 'B' } });
      await sync('pull', { created: 0, updated: 1 });
      expect(await readAll(A)).to.deep.equal(await readAll(B));
      expect((await ok(A, 'GET', `/api/collections/lposts/${id}?locale=de`)).seo).to.deep.equal({ k: 'B' });

      // fr deleted on A (with its versions; created again, empty): the push deletes B's fr version of the entry.
      await ok(A, 'DELETE', '/api/locales/fr');
      await ok(A, 'POST', '/api/locales', { code: 'fr' });
      await sync('push', { created: 0, updated: 1 });
      expect(await readAll(B)).to.deep.equal(await readAll(A));
      expect((await ok(B, 'GET', `/api/collections/lposts/${onB._id}`))._locales).to.deep.equal(['en', 'de']);
    });

    it('a mirror push deletes the entry on B with its versions', async function () {
      await ok(A, 'DELETE', `/api/collections/lposts/${id}`);
      await sync('push', { deleted: 1 }, { mode: 'mirror' });
      expect(await readAll(B)).to.deep.equal(await readAll(A));
      expect(await readAll(B)).to.have.length(4);
      // B's table of versions holds none of the deleted entry (read from B's database file).
      const bDb = new Sequelize({ dialect: 'sqlite', storage: join(b.dataDir, 'cms.sqlite'), logging: false });
      try {
        const rows = await bDb.query<{ entry_id: string }>('SELECT entry_id FROM content_entry_locales', { type: QueryTypes.SELECT });
        expect(rows).to.deep.equal([]);
      } finally {
        await bDb.close();
      }
    });
  });
}

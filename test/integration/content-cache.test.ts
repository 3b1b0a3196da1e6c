import { expect } from 'chai';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, startTestKernel, tempDir, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { MARIADB_URL, REDIS_URL, createMariaDbDatabase, uniqueName } from '../helpers/services.js';

const NOTES = {
  name: 'notes',
  fields: [
    { name: 'title', type: 'text', required: true },
    { name: 'rank', type: 'number', indexed: true },
  ],
};

describe('content: the collection list cache', function () {
  this.timeout(60000);
  const t = useTestKernel(
    { plugins: [fixturePlugin('test-identity')] },
    {
      seed: async () => {
        await dataOf(await as(t, 'admin').post('/api/collections', NOTES), 201);
      },
    },
  );
  const editor = () => as(t, 'editor');

  it('serves a repeated list from the cache, each query variant on its own', async () => {
    await dataOf(await editor().post('/api/collections/notes', { title: 'First', rank: 1 }), 201);
    const first = await editor().get('/api/collections/notes?sort=rank');
    expect(first.headers.get('x-cache')).to.equal('MISS');
    const again = await editor().get('/api/collections/notes?sort=rank');
    expect(again.headers.get('x-cache')).to.equal('HIT');
    expect((await again.json()).data).to.deep.equal((await first.json()).data);
    expect((await editor().get('/api/collections/notes?sort=-rank')).headers.get('x-cache')).to.equal('MISS');
    // Readers without content:write have their own cached variant (published entries only).
    expect((await dataOf(await as(t, 'viewer').get('/api/collections/notes?sort=rank'))).total).to.equal(0);
  });

  it('after a write, every cached variant (sorted, searched, filtered) is fresh', async () => {
    const variants = [
      '?sort=rank',
      '?sort=-rank',
      '?search=note',
      `?filter=${encodeURIComponent('{"rank":{"gte":0}}')}`,
      '?limit=5&page=1',
    ];
    for (const v of variants) await editor().get(`/api/collections/notes${v}`);
    for (const v of variants) expect((await editor().get(`/api/collections/notes${v}`)).headers.get('x-cache'), v).to.equal('HIT');
    const added = await dataOf(await editor().post('/api/collections/notes', { title: 'Second note', rank: 2 }), 201);
    for (const v of variants) {
      const res = await editor().get(`/api/collections/notes${v}`);
      expect(res.headers.get('x-cache'), v).to.equal('MISS');
      expect(
        (await res.json()).data.items.map((e: { _id: string }) => e._id),
        v,
      ).to.include(added._id);
    }
    await dataOf(await editor().patch(`/api/collections/notes/${added._id}`, { title: 'Renamed note' }));
    expect((await dataOf(await editor().get('/api/collections/notes?sort=rank'))).items.map((e: { title: string }) => e.title)).to.include(
      'Renamed note',
    );
    await dataOf(await editor().delete(`/api/collections/notes/${added._id}`));
    expect((await dataOf(await editor().get('/api/collections/notes?sort=rank'))).items.map((e: { _id: string }) => e._id)).to.not.include(
      added._id,
    );
  });

  it('answers If-None-Match with 304 from the stored tag; the tag and bytes of a hit are those of the miss; a write changes the tag', async () => {
    const path = '/api/collections/notes?sort=rank&limit=7';
    const get = (headers: Record<string, string> = {}) => t.request(path, { identity: 'editor', headers });
    const miss = await get();
    expect(miss.headers.get('x-cache')).to.equal('MISS');
    const tag = miss.headers.get('etag')!;
    expect(tag).to.match(/^"[0-9a-f]{16}"$/);
    const missText = await miss.text();
    expect(JSON.parse(missText)).to.have.property('success', true);
    const hit = await get();
    expect(hit.headers.get('x-cache')).to.equal('HIT');
    expect(hit.headers.get('etag')).to.equal(tag);
    expect(hit.headers.get('content-type')).to.equal('application/json; charset=utf-8');
    expect(await hit.text()).to.equal(missText);
    const conditional = await get({ 'if-none-match': `W/${tag}` });
    expect(conditional.status).to.equal(304);
    expect(conditional.headers.get('etag')).to.equal(tag);
    expect(conditional.headers.get('x-cache')).to.equal('HIT');
    expect(await conditional.text()).to.equal('');
    // Readers without content:write see another list (published only): another tag.
    const viewer = await t.request(path, { identity: 'viewer', headers: { 'if-none-match': tag } });
    expect(viewer.status).to.equal(200);
    expect(viewer.headers.get('etag')).to.not.equal(tag);
    const added = await dataOf(await editor().post('/api/collections/notes', { title: 'Tagged', rank: -1 }), 201);
    const after = await get({ 'if-none-match': tag });
    expect(after.status).to.equal(200);
    expect(after.headers.get('x-cache')).to.equal('MISS');
    expect(after.headers.get('etag')).to.not.equal(tag);
    expect((await after.json()).data.items.map((e: { _id: string }) => e._id)).to.include(added._id);
    // A status change and a schema change are writes too.
    const newer = (await get()).headers.get('etag')!;
    await dataOf(await editor().patch(`/api/collections/notes/${added._id}/status`, { status: 'published' }));
    expect((await get({ 'if-none-match': newer })).status).to.equal(200);
    const newest = (await get()).headers.get('etag')!;
    await dataOf(
      await as(t, 'admin').patch('/api/collections/notes/schema', { fields: [...NOTES.fields, { name: 'extra', type: 'text' }] }),
    );
    expect((await get({ 'if-none-match': newest })).status).to.equal(200);
  });

  it('an invalid list query is still a 400, with or without If-None-Match', async () => {
    const bad = await t.request('/api/collections/notes?sort=nope', { identity: 'editor', headers: { 'if-none-match': '*' } });
    expect(bad.status).to.equal(400);
  });

  it('never serves a list older than a completed write, with reads racing the writes', async () => {
    const stale: string[] = [];
    let stop = false;
    // Readers hammer the same list while writes complete; every read that starts after a write has
    // answered must contain that write.
    const done: Array<{ id: string; at: number }> = [];
    const reader = async () => {
      while (!stop) {
        const startedAt = performance.now();
        const must = done.filter((d) => d.at < startedAt).map((d) => d.id);
        const items = (await dataOf(await editor().get('/api/collections/notes?limit=100&sort=-createdAt'))).items.map(
          (e: { _id: string }) => e._id,
        );
        for (const id of must) if (!items.includes(id)) stale.push(id);
      }
    };
    const readers = [reader(), reader(), reader()];
    for (let i = 0; i < 15; i++) {
      const e = await dataOf(await editor().post('/api/collections/notes', { title: `Race ${i}`, rank: 100 + i }), 201);
      done.push({ id: e._id, at: performance.now() });
    }
    stop = true;
    await Promise.all(readers);
    expect(stale, 'lists missing a write that had already completed').to.deep.equal([]);
  });
});

describe('content: the list cache across two instances sharing Redis', function () {
  this.timeout(60000);
  let a: TestKernel | undefined;
  let b: TestKernel | undefined;
  let drop: (() => Promise<void>) | undefined;
  before(async function () {
    if (!REDIS_URL) {
      console.log('      CMS_TEST_REDIS_URL is not set: Redis variant skipped');
      this.skip();
    }
    const prefix = uniqueName('cmscontent');
    const shared = MARIADB_URL ? await createMariaDbDatabase() : null;
    drop = shared?.drop;
    const dataDir = tempDir();
    const common = { plugins: [fixturePlugin('test-identity')], cache: 'redis' as const, config: { redis: { url: REDIS_URL, prefix } } };
    a = await startTestKernel({ ...common, ...(shared ? { dbUrl: shared.url } : { dataDir }) });
    b = await startTestKernel({ ...common, ...(shared ? { dbUrl: shared.url } : { dataDir }) });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
  });

  it('a collection made on one instance is usable on the other; a write on one is never followed by a stale list on the other', async () => {
    await dataOf(await as(a!, 'admin').post('/api/collections', NOTES), 201);
    await dataOf(await as(b!, 'editor').post('/api/collections/notes', { title: 'From B', rank: 1 }), 201);
    expect((await as(b!, 'editor').get('/api/collections/notes')).headers.get('x-cache')).to.equal('MISS');
    expect((await as(a!, 'editor').get('/api/collections/notes')).headers.get('x-cache'), 'the cache is shared').to.equal('HIT');
    for (let i = 0; i < 5; i++) {
      const [writer, reader] = i % 2 ? [a!, b!] : [b!, a!];
      const e = await dataOf(await as(writer, 'editor').post('/api/collections/notes', { title: `Note ${i}`, rank: i + 10 }), 201);
      const items = (await dataOf(await as(reader, 'editor').get('/api/collections/notes'))).items.map((x: { _id: string }) => x._id);
      expect(items, `write ${i}`).to.include(e._id);
    }
    // A tag from one instance is answered 304 by the other, until a write on either changes it.
    const tag = (await as(a!, 'editor').get('/api/collections/notes')).headers.get('etag')!;
    const onB = await b!.request('/api/collections/notes', { identity: 'editor', headers: { 'if-none-match': tag } });
    expect(onB.status).to.equal(304);
    await dataOf(await as(a!, 'editor').post('/api/collections/notes', { title: 'Changes the tag', rank: 99 }), 201);
    const staleOnB = await b!.request('/api/collections/notes', { identity: 'editor', headers: { 'if-none-match': tag } });
    expect(staleOnB.status).to.equal(200);
    expect(staleOnB.headers.get('etag')).to.not.equal(tag);
    const schema = await dataOf(
      await as(b!, 'admin').patch('/api/collections/notes/schema', { fields: [...NOTES.fields, { name: 'pinned', type: 'boolean' }] }),
    );
    expect(schema.version).to.equal(2);
    const pinned = await dataOf(await as(a!, 'editor').post('/api/collections/notes', { title: 'Pinned on A', pinned: true }), 201);
    expect(pinned.pinned, 'instance A knows the field B added').to.equal(true);
  });
});

import { join } from 'node:path';
import { expect } from 'chai';
import sqlite3 from 'sqlite3';
import { IdempotencyStore } from '../../kernel/http/idempotency.js';
import { as, dataOf, createPosts } from '../helpers/content.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * A 5xx means nothing was written, and a client may retry a create safely with Idempotency-Key.
 * Found by hand before: an entry POST answered 500 while the database was locked, yet the entry
 * existed, and the retry created it twice.
 */
for (const variant of DB_VARIANTS) {
  describe(`writes are atomic, and creates are idempotent with Idempotency-Key (${variant.name})`, function () {
    this.timeout(60000);
    const count = async () => (await dataOf(await as(t, 'admin').get('/api/collections/posts?limit=1'))).total as number;
    const create = (body: unknown, key?: string, identity = 'editor') =>
      t.request('/api/collections/posts', { method: 'POST', identity, json: body, headers: key ? { 'Idempotency-Key': key } : {} });

    const t = useTestKernel(
      { db: variant.name, plugins: [fixturePlugin('test-identity')], config: { db: { busyTimeoutMs: 200 } } },
      {
        variant,
        seed: () => createPosts(t),
      },
    );

    it('an entry whose revision cannot be written answers 5xx and leaves no entry behind; the retry with the same key creates it once', async () => {
      const trigger =
        variant.name === 'sqlite'
          ? "CREATE TRIGGER refuse_revisions BEFORE INSERT ON content_revisions BEGIN SELECT RAISE(ABORT, 'revision refused'); END"
          : "CREATE TRIGGER refuse_revisions BEFORE INSERT ON content_revisions FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'revision refused'";
      await t.kernel.sequelize.query(trigger);
      const before = await count();
      const failed = await create({ title: 'Only once' }, 'retry-key-1');
      expect(failed.status).to.equal(500);
      expect((await failed.json()).error).to.equal('INTERNAL_ERROR');
      expect(await count()).to.equal(before);
      await t.kernel.sequelize.query('DROP TRIGGER refuse_revisions');

      const first = await create({ title: 'Only once' }, 'retry-key-1');
      const made = await dataOf(first, 201);
      expect(first.headers.get('idempotent-replayed')).to.equal(null);
      const again = await create({ title: 'Only once' }, 'retry-key-1');
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect((await again.json()).data).to.deep.equal(made);
      expect(await count()).to.equal(before + 1);
    });

    it('a key reused for another body is 422, another caller with the same key is a separate request, a bad key is 400', async () => {
      await dataOf(await create({ title: 'Keyed A' }, 'retry-key-2'), 201);
      const reused = await create({ title: 'Keyed B' }, 'retry-key-2');
      expect(reused.status).to.equal(422);
      expect((await reused.json()).error).to.equal('IDEMPOTENCY_KEY_REUSED');
      const other = await create({ title: 'Keyed A' }, 'retry-key-2', 'admin');
      expect(other.status).to.equal(201);
      expect(other.headers.get('idempotent-replayed')).to.equal(null);
      const bad = await create({ title: 'Keyed C' }, 'x'.repeat(300));
      expect(bad.status).to.equal(400);
      expect((await bad.json()).error).to.equal('VALIDATION_ERROR');
      // Without a key, every POST creates.
      const n = await count();
      await dataOf(await create({ title: 'Plain' }), 201);
      await dataOf(await create({ title: 'Plain' }), 201);
      expect(await count()).to.equal(n + 2);
    });

    it('a refused create (4xx) keeps nothing: the same key works once the body is fixed', async () => {
      const refused = await create({ views: 'not a number' }, 'retry-key-3');
      expect(refused.status).to.equal(400);
      const fixed = await create({ title: 'Fixed' }, 'retry-key-3');
      expect(fixed.status).to.equal(201);
    });

    it("a media upload and an API key retried with the same key are created once; the stored answer does not reveal the key's secret", async () => {
      const upload = () => {
        const fd = new FormData();
        fd.append('file', new Blob(['hello, idempotent world\n'], { type: 'text/plain' }), 'hello.txt');
        return t.request('/api/media/upload', { method: 'POST', identity: 'editor', body: fd, headers: { 'Idempotency-Key': 'upload-1' } });
      };
      const first = await dataOf(await upload(), 201);
      const again = await upload();
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect((await again.json()).data._id).to.equal(first._id);
      const media = await dataOf(await as(t, 'admin').get('/api/media?limit=100'));
      expect(media.items.filter((m: { filename: string }) => m.filename === 'hello.txt')).to.have.length(1);

      // API keys need a signed-in session (not the test identity).
      const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
      await users.create({ email: 'keys@example.com', password: 'correct horse battery', role: 'editor' });
      const login = await t.request('/api/user/login', {
        method: 'POST',
        json: { email: 'keys@example.com', password: 'correct horse battery' },
      });
      const cookie = login.headers
        .getSetCookie()
        .find((c) => c.startsWith('session='))!
        .split(';')[0]!;
      const createKey = () =>
        t.request('/api/api-keys', {
          method: 'POST',
          headers: { cookie, 'Idempotency-Key': 'key-1' },
          json: { name: 'ci', permissions: ['content:read'] },
        });
      const key = await dataOf(await createKey(), 201);
      const replay = await createKey();
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect((await replay.json()).data).to.deep.equal(key);
      const keys = await dataOf(await t.request('/api/api-keys', { headers: { cookie } }));
      expect(keys.filter((k: { name: string }) => k.name === 'ci')).to.have.length(1);
      const stored = await t.kernel.sequelize.query<{ response: string }>(
        'SELECT response FROM cms_idempotency_keys WHERE response IS NOT NULL',
        { type: 'SELECT' as never },
      );
      expect(stored.length).to.be.greaterThan(0);
      for (const row of stored) expect(Buffer.from(row.response, 'base64').toString('latin1')).not.to.include(key.key);
      expect(JSON.stringify(stored)).not.to.include(key.key);
    });

    it('while the first request with a key is still running, the same key is 409 IDEMPOTENCY_KEY_IN_USE', async () => {
      const store = new IdempotencyStore(t.kernel.sequelize);
      const scope = { tenantId: 'default', principal: 'user:someone', key: 'in-flight-1' };
      const request = {
        method: 'POST',
        route: '/api/collections/:collection',
        params: { collection: 'posts' },
        query: {},
        body: { title: 'x' },
      };
      const first = await store.begin(scope, request);
      expect(first.kind).to.equal('new');
      const second = await store.begin(scope, request).then(
        () => null,
        (e) => e,
      );
      expect(second?.code).to.equal('IDEMPOTENCY_KEY_IN_USE');
      expect(second?.status).to.equal(409);
      if (first.kind === 'new') await first.done({ status: 201, body: { success: true, data: { ok: 1 } } });
      const replay = await store.begin(scope, request);
      expect(replay).to.deep.equal({ kind: 'replay', response: { status: 201, body: { success: true, data: { ok: 1 } } } });
    });

    if (variant.name === 'sqlite') {
      it('while another process holds the SQLite writer, a create answers 503 DATABASE_BUSY with Retry-After and writes nothing; the retry succeeds', async () => {
        const other = new sqlite3.Database(join(t.dataDir, 'cms.sqlite'));
        const exec = (sql: string) => new Promise<void>((resolve, reject) => other.exec(sql, (err) => (err ? reject(err) : resolve())));
        await exec('BEGIN IMMEDIATE');
        const before = await count();
        try {
          const busy = await create({ title: 'While locked' }, 'retry-key-4');
          expect(busy.status).to.equal(503);
          expect(busy.headers.get('retry-after')).to.equal('2');
          expect((await busy.json()).error).to.equal('DATABASE_BUSY');
        } finally {
          await exec('ROLLBACK');
          await new Promise<void>((resolve) => other.close(() => resolve()));
        }
        expect(await count()).to.equal(before);
        await dataOf(await create({ title: 'While locked' }, 'retry-key-4'), 201);
        expect(await count()).to.equal(before + 1);
      });
    }
  });
}

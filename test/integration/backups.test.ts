import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { stringify } from 'safe-stable-stringify';
import { fixturePlugin, responseCookie, startTestKernel, tempDir, writePlugin, type TestKernel } from '../helpers/kernel.js';
import { imageBytes, sha256, uploadFile } from '../helpers/media-upload.js';
import { DB_VARIANTS, REDIS_URL, requireVariant, uniqueName } from '../helpers/services.js';

/** An identity resolver with an `operator` role: backup:read and backup:create, not admin. */
function operatorPlugin(cleanup: string[]): string {
  const root = tempDir('cms-backup-op-');
  cleanup.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  return writePlugin(
    root,
    { id: 'test-operator', name: 'Test operator', version: '1.0.0', kernel: '^1.0.0', provides: { identityResolvers: ['test-operator'] } },
    `export default { register({ registries }) { registries.identityResolvers.add({ id: 'test-operator', priority: 90, async resolve(ctx) {
      return ctx.get('x-test-identity') === 'operator' ? { kind: 'user', userId: 'user-operator', role: 'operator', permissions: ['backup:read', 'backup:create'], tenantId: 'default' } : null;
    } }); } };\n`,
  );
}

for (const variant of DB_VARIANTS) {
  describe(`backups: create / list / validate / restore (${variant.name})`, function () {
    this.timeout(120000);
    let t: TestKernel;
    const cleanup: string[] = [];
    const post = (path: string, json: unknown, identity = 'admin') => t.request(path, { method: 'POST', json, identity });
    const json = async (res: Response | any) => ({ status: res.status, body: await res.json() });
    /** Every row of each collection table, as sorted JSON: what "identical" means. */
    const tableRows = async (collections: string[]) => {
      const sequelize = t.kernel.container.resolve<any>('sequelize');
      const out: Record<string, string> = {};
      for (const c of collections) {
        const rows = await sequelize.query(`SELECT * FROM cms_c_${c} ORDER BY id`, { type: 'SELECT' });
        out[c] = JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
      }
      return out;
    };
    const create = async (body: unknown = {}) => {
      const r = await json(await post('/api/backups/create', body));
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      return r.body.data;
    };

    before(async function () {
      requireVariant(this, variant);
      t = await startTestKernel({
        db: variant.name,
        plugins: [fixturePlugin('test-identity'), operatorPlugin(cleanup)],
        config: { plugins: { options: { backups: { retentionCount: 3 }, auth: { bcryptRounds: 4 } } } },
      });
      for (const name of ['posts', 'notes']) {
        const res = await post('/api/collections', {
          name,
          fields: [
            { name: 'title', type: 'text' },
            { name: 'views', type: 'number' },
            { name: 'flag', type: 'boolean' },
            { name: 'meta', type: 'json' },
            { name: 'at', type: 'date' },
          ],
        });
        expect(res.status).to.equal(201);
      }
      for (let i = 0; i < 12; i++) {
        expect(
          (
            await post('/api/collections/posts', {
              title: `Post ${i} ✓ "q"\nline`,
              views: i * 1.5,
              flag: i % 2 === 0,
              meta: { i, tags: ['a', 'b'] },
              at: '2026-01-02T03:04:05.000Z',
            })
          ).status,
        ).to.equal(201);
      }
      for (let i = 0; i < 3; i++) expect((await post('/api/collections/notes', { title: `Note ${i}` })).status).to.equal(201);
    });
    after(async () => {
      await t?.close();
      for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
    });

    it('create -> list shows the backup with its counts; the directory has the format files', async () => {
      // encrypt: false (the default encrypts with the installation key): the files are read as text below.
      const data = await create({ encrypt: false });
      expect(data.backupId).to.match(/^\d{8}T\d{9}Z-[0-9a-f]{8}$/);
      expect(data.backup).to.include({ backupId: data.backupId, encrypted: false, includesMedia: false, collections: 2, entries: 15 });
      const list = await json(await t.request('/api/backups', { identity: 'admin' }));
      expect(list.status).to.equal(200);
      const found = list.body.data.backups.find((b: any) => b.backupId === data.backupId);
      expect(found).to.include({ collections: 2, entries: 15, encrypted: false, includesMedia: false });
      expect(found.size).to.be.greaterThan(0);
      const dir = join(t.dataDir, 'backups', `${data.backupId}.svelty-backup`);
      const files = readdirSync(dir);
      expect(files).to.include.members(['manifest.json', 'checksums.sha256', 'config.json', 'content', 'media']);
      const lines = readFileSync(join(dir, 'content', 'posts.ndjson'), 'utf8')
        .trim()
        .split('\n');
      expect(lines).to.have.length(12);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
      expect(manifest).to.include({ format: 'svelty-backup', formatVersion: 1, encrypted: false });
      expect((await json(await post('/api/backups/validate', { backupId: data.backupId }))).body.data).to.deep.equal({
        valid: true,
        problems: [],
      });
    });

    it('create -> wipe -> restore-plan -> restore gives identical rows (and verify ok)', async () => {
      const before = await tableRows(['posts', 'notes']);
      const { backupId } = await create();
      // Wipe: delete every post, change a note, add one.
      const posts = (await json(await t.request('/api/collections/posts?limit=100', { identity: 'admin' }))).body.data.items;
      for (const p of posts)
        expect((await t.request(`/api/collections/posts/${p._id}`, { method: 'DELETE', identity: 'admin' })).status).to.be.oneOf([
          200, 204,
        ]);
      await post('/api/collections/notes', { title: 'after the backup' });
      expect(await tableRows(['posts', 'notes'])).to.not.deep.equal(before);

      const plan = await json(await post('/api/backups/restore-plan', { backupId }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(200);
      expect(plan.body.data).to.include({ domain: 'backup', mode: 'replace', risk: 'destructive', requiresConfirmation: true });
      expect(plan.body.data.blockedReasons).to.deep.equal([]);
      const ops = plan.body.data.operations.map((o: any) => `${o.action} ${o.type} ${o.target} ${o.count}`);
      expect(ops).to.include.members(['delete entry notes 4', 'create entry notes 3', 'create entry posts 12']);

      const refused = await json(await post('/api/backups/restore', { planId: plan.body.data.planId }));
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal('CONFIRMATION_REQUIRED');

      const done = await json(
        await post('/api/backups/restore', { planId: plan.body.data.planId, confirmed: true, planHash: plan.body.data.planHash }),
      );
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      expect(done.body.data.outcome).to.equal('success');
      if (done.body.data.verify) expect(done.body.data.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect(await tableRows(['posts', 'notes'])).to.deep.equal(before);
      // The collection list cache was cleared: the API sees the restored rows.
      expect((await json(await t.request('/api/collections/posts?limit=100', { identity: 'admin' }))).body.data.total).to.equal(12);
    });

    it('encrypted backup: validate with the right passphrase ok, a wrong one valid false naming it, never a 500; restore works', async () => {
      const before = await tableRows(['posts', 'notes']);
      const { backupId, backup } = await create({ passphrase: 'correct horse battery staple' });
      expect(backup.encrypted).to.equal(true);
      const dir = join(t.dataDir, 'backups', `${backupId}.svelty-backup`);
      expect(readFileSync(join(dir, 'content', 'posts.ndjson'), 'utf8')).to.not.include('Post 1');
      const manifestText = readFileSync(join(dir, 'manifest.json'), 'utf8');
      expect(manifestText).to.not.include('correct horse');
      expect(
        (await json(await post('/api/backups/validate', { backupId, passphrase: 'correct horse battery staple' }))).body.data,
      ).to.deep.equal({ valid: true, problems: [] });
      const wrong = await json(await post('/api/backups/validate', { backupId, passphrase: 'wrong' }));
      expect(wrong.status).to.equal(200);
      expect(wrong.body.data.valid).to.equal(false);
      expect(wrong.body.data.problems.join(' ')).to.match(/Wrong passphrase/);
      const none = await json(await post('/api/backups/validate', { backupId }));
      expect(none.body.data.valid).to.equal(false);
      // restore-plan with a wrong passphrase: a clean 400, not a 500.
      const badPlan = await json(await post('/api/backups/restore-plan', { backupId, passphrase: 'wrong' }));
      expect(badPlan.status).to.equal(400);
      const plan = await json(await post('/api/backups/restore-plan', { backupId, passphrase: 'correct horse battery staple' }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(200);
      await post('/api/collections/notes', { title: 'noise' });
      // The plan was made before the change: stale, nothing applied.
      const stale = await json(await post('/api/backups/restore', { planId: plan.body.data.planId, confirmed: true }));
      expect(stale.status).to.equal(409);
      expect(stale.body.error).to.equal('PLAN_STALE');
      expect((await t.request('/api/collections/notes', { identity: 'editor' })).status).to.equal(200);
      const plan2 = await json(await post('/api/backups/restore-plan', { backupId, passphrase: 'correct horse battery staple' }));
      // The stored plans never hold the passphrase (nor the key): only a reference to the key in memory.
      const stored = await t.kernel.container.resolve<any>('sequelize').query('SELECT * FROM cms_data_plans', { type: 'SELECT' });
      expect(JSON.stringify(stored)).to.not.include('correct horse');
      const done = await json(await post('/api/backups/restore', { planId: plan2.body.data.planId, confirmed: true }));
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      expect(done.body.data.outcome).to.equal('success');
      expect(await tableRows(['posts', 'notes'])).to.deep.equal(before);
    });

    it('a tampered NDJSON file: validate valid false naming the file; restore-plan is blocked', async () => {
      const { backupId } = await create({ encrypt: false });
      const file = join(t.dataDir, 'backups', `${backupId}.svelty-backup`, 'content', 'notes.ndjson');
      writeFileSync(file, readFileSync(file, 'utf8').replace('Note 1', 'Note X'));
      const r = await json(await post('/api/backups/validate', { backupId }));
      expect(r.status).to.equal(200);
      expect(r.body.data.valid).to.equal(false);
      expect(r.body.data.problems.some((p: string) => p.includes('content/notes.ndjson'))).to.equal(true);
      const plan = await json(await post('/api/backups/restore-plan', { backupId }));
      expect(plan.body.data.blockedReasons.join(' ')).to.include('content/notes.ndjson');
    });

    it('permissions: editor 403 on the namespace, operator (backup:create, not admin) 403 on restore; unknown backup 404', async () => {
      expect((await t.request('/api/backups', { identity: 'editor' })).status).to.equal(403);
      expect((await post('/api/backups/create', {}, 'editor')).status).to.equal(403);
      expect((await t.request('/api/backups', { identity: 'operator' })).status).to.equal(200);
      const { backupId } = await create();
      const plan = await json(await post('/api/backups/restore-plan', { backupId }, 'operator'));
      expect(plan.status).to.equal(200);
      const r = await json(await post('/api/backups/restore', { planId: plan.body.data.planId, confirmed: true }, 'operator'));
      expect(r.status).to.equal(403);
      expect(r.body.error).to.equal('FORBIDDEN');
      expect((await post('/api/backups/validate', { backupId: '20200101T000000000Z-00000000' })).status).to.equal(404);
      expect((await post('/api/backups/validate', { backupId: '../../etc' })).status).to.equal(400);
      expect((await post('/api/backups/restore', {})).status).to.equal(400);
    });

    it('while a restore runs (maintenance flag held) non-admin requests answer 503 MAINTENANCE with Retry-After; admins pass', async () => {
      const m = t.kernel.container.resolve<any>('backupsMaintenance');
      await m.begin('test');
      try {
        const r = await t.request('/api/collections/posts', { identity: 'editor' });
        expect(r.status).to.equal(503);
        expect(r.headers.get('retry-after')).to.match(/^\d+$/);
        expect((await r.json()).error).to.equal('MAINTENANCE');
        expect((await t.request('/api/collections/posts')).status).to.equal(503);
        expect((await t.request('/api/collections/posts', { identity: 'admin' })).status).to.equal(200);
        expect((await t.request('/api/health')).status).to.equal(200);
      } finally {
        await m.end();
      }
      expect((await t.request('/api/collections/posts', { identity: 'editor' })).status).to.equal(200);
    });

    it('includeMedia: the files are in the backup (encrypted too); a deleted file and its record come back on restore', async () => {
      const bytes = await imageBytes(64, 48);
      const up = await json(await uploadFile(t, bytes, 'pic.png', { identity: 'admin' }));
      expect(up.status, JSON.stringify(up.body)).to.equal(201);
      const { _id, url } = up.body.data;
      const { backupId, backup } = await create({ includeMedia: true, passphrase: 'media-pass' });
      expect(backup.includesMedia).to.equal(true);
      const manifest = JSON.parse(readFileSync(join(t.dataDir, 'backups', `${backupId}.svelty-backup`, 'manifest.json'), 'utf8'));
      expect(manifest.media.files).to.equal(1);
      expect(manifest.files.some((f: any) => f.path.startsWith('media/files/') && f.iv && f.tag)).to.equal(true);
      expect((await json(await post('/api/backups/validate', { backupId, passphrase: 'media-pass' }))).body.data).to.deep.equal({
        valid: true,
        problems: [],
      });
      expect((await t.request(`/api/media/${_id}`, { method: 'DELETE', identity: 'admin' })).status).to.be.oneOf([200, 204]);
      expect((await t.request(url, { identity: 'admin' })).status).to.equal(404);
      const plan = await json(await post('/api/backups/restore-plan', { backupId, passphrase: 'media-pass' }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(200);
      expect(plan.body.data.operations.map((o: any) => o.type)).to.include('media-file');
      const done = await json(await post('/api/backups/restore', { planId: plan.body.data.planId, confirmed: true }));
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      expect(done.body.data.outcome).to.equal('success');
      expect((await t.request(`/api/media/${_id}`, { identity: 'admin' })).status).to.equal(200);
      const file = await t.request(url, { identity: 'admin' });
      expect(file.status).to.equal(200);
      expect(sha256(Buffer.from(await file.arrayBuffer()))).to.equal(sha256(bytes));
    });

    it('a collection deleted since the backup: the plan creates it (outside the transaction), the restore brings it and its entries back', async () => {
      const before = await tableRows(['posts', 'notes']);
      const notes = (await json(await t.request('/api/collections/notes?limit=100', { identity: 'admin' }))).body.data.total;
      const { backupId } = await create();
      const dropped = await t.request('/api/collections/notes/schema', { method: 'DELETE', identity: 'admin' });
      expect(dropped.status, await dropped.text()).to.equal(200);
      expect((await t.request('/api/collections/notes', { identity: 'admin' })).status).to.equal(404);
      const plan = await json(await post('/api/backups/restore-plan', { backupId }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(200);
      expect(plan.body.data.blockedReasons).to.deep.equal([]);
      const ops = plan.body.data.operations.map((o: any) => `${o.action} ${o.type} ${o.target} ${o.count}`);
      expect(ops).to.include.members(['create collection notes 1', `create entry notes ${notes}`]);
      expect(ops).to.not.include(`delete entry notes ${notes}`);
      const done = await json(await post('/api/backups/restore', { planId: plan.body.data.planId, confirmed: true }));
      expect(done.status, JSON.stringify(done.body)).to.equal(200);
      expect(done.body.data.outcome, JSON.stringify(done.body)).to.equal('success');
      if (done.body.data.verify) expect(done.body.data.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect(await tableRows(['posts', 'notes'])).to.deep.equal(before);
      const list = await json(await t.request('/api/collections/notes?limit=100', { identity: 'admin' }));
      expect(list.status).to.equal(200);
      expect(list.body.data.total).to.equal(notes);
      expect((await post('/api/collections/notes', { title: 'after the restore' })).status).to.equal(201);
    });

    it('a role changed since the backup: the restore reaches a signed-in user of that role at once (cached session dropped)', async () => {
      const Role = t.kernel.container.resolve<Record<string, any>>('models').Role;
      await Role.create({
        tenant_id: 'default',
        name: 'reviewer',
        description: 'Reviews',
        permissions: JSON.stringify(['backup:read', 'content:read']),
      });
      const users = t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
      const password = 'correct horse battery';
      await users.create({ email: 'reviewer@example.com', password, role: 'reviewer' });
      const { backupId } = await create();
      const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'reviewer@example.com', password } });
      const cookie = responseCookie(login)!;
      expect(cookie, await login.text()).to.be.a('string');
      const listAsReviewer = async () => (await t.request('/api/backups', { headers: { cookie } })).status;
      expect(await listAsReviewer()).to.equal(200);
      // Change the role through the API (configuration promotion): backup:read is taken away.
      expect((await post('/api/config/export', { types: ['role'] })).status).to.equal(200);
      const file = join(t.dataDir, 'config', 'sync', 'role', 'reviewer.json');
      const synced = JSON.parse(readFileSync(file, 'utf8'));
      const data = { ...synced.data, permissions: ['content:read'] };
      const sha = createHash('sha256').update(stringify(data)!).digest('hex');
      writeFileSync(file, JSON.stringify({ ...synced, checksum: sha, data }));
      const change = await json(await post('/api/config/plan', { types: ['role'] }));
      expect(change.status, JSON.stringify(change.body)).to.equal(200);
      expect(change.body.data.blockedReasons).to.deep.equal([]);
      const changed = await json(await post('/api/config/apply', { planId: change.body.data.planId, confirmed: true }));
      expect(changed.body.data.outcome, JSON.stringify(changed.body)).to.equal('success');
      expect(await listAsReviewer()).to.equal(403);
      // The restore puts the backed-up role back: the signed-in reviewer has backup:read again at once.
      const plan = await json(await post('/api/backups/restore-plan', { backupId }));
      expect(plan.status, JSON.stringify(plan.body)).to.equal(200);
      expect(plan.body.data.operations.map((o: any) => `${o.action} ${o.type} ${o.target}`)).to.include('update config roles');
      const done = await json(await post('/api/backups/restore', { planId: plan.body.data.planId, confirmed: true }));
      expect(done.body.data.outcome, JSON.stringify(done.body)).to.equal('success');
      expect(JSON.parse((await Role.findOne({ where: { tenant_id: 'default', name: 'reviewer' } })).permissions)).to.include('backup:read');
      expect(await listAsReviewer()).to.equal(200);
    });

    it('download streams the backup as one tar.gz', async () => {
      const { backupId } = await create();
      const r = await t.request(`/api/backups/${backupId}/download`, { identity: 'admin' });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal('application/gzip');
      const bytes = Buffer.from(await r.arrayBuffer());
      expect(bytes.subarray(0, 2).toString('hex')).to.equal('1f8b');
    });

    it('retention keeps the newest retentionCount (3) backups', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await create()).backupId);
      const listed = (await json(await t.request('/api/backups', { identity: 'admin' }))).body.data.backups.map((b: any) => b.backupId);
      expect(listed).to.deep.equal([...ids].reverse().slice(0, 3));
    });
  });
}

for (const variant of DB_VARIANTS) {
  describe(`backups: create reads one consistent snapshot while writers keep going (${variant.name})`, function () {
    this.timeout(120000);
    let t: TestKernel;
    const SEED = 1500;
    let sequelize: any;
    /** One row of a collection table (system columns only; the field columns are nullable). */
    const row = (i: number) => {
      const now = Date.now();
      return {
        id: randomUUID(),
        tenant_id: 'default',
        sync_id: randomUUID(),
        slug: `s-${i}-${randomUUID()}`,
        status: 'published',
        version: 1,
        created_at: now,
        updated_at: now,
      };
    };
    const insert = async (table: string, rows: Record<string, unknown>[], transaction?: unknown) => {
      const cols = Object.keys(rows[0]!);
      const q = (n: string) => sequelize.getQueryInterface().quoteIdentifier(n);
      await sequelize.query(
        `INSERT INTO ${q(table)} (${cols.map(q).join(', ')}) VALUES ${rows.map(() => `(${cols.map(() => '?').join(', ')})`).join(', ')}`,
        {
          replacements: rows.flatMap((r) => cols.map((c) => r[c])),
          transaction,
        },
      );
    };
    const count = async (table: string) => Number((await sequelize.query(`SELECT COUNT(*) AS n FROM ${table}`, { type: 'SELECT' }))[0].n);

    before(async function () {
      requireVariant(this, variant);
      t = await startTestKernel({
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        // Pages of 10: reading the seeded rows takes hundreds of queries, time for many concurrent writes.
        config: { plugins: { options: { backups: { pageSize: 10, inlineThreshold: 1_000_000 }, auth: { bcryptRounds: 4 } } } },
      });
      sequelize = t.kernel.container.resolve<any>('sequelize');
      for (const name of ['alpha', 'beta']) {
        const res = await t.request('/api/collections', {
          method: 'POST',
          identity: 'admin',
          json: { name, fields: [{ name: 'title', type: 'text' }] },
        });
        expect(res.status).to.equal(201);
      }
      for (const table of ['cms_c_alpha', 'cms_c_beta'])
        for (let i = 0; i < SEED; i += 250)
          await insert(
            table,
            Array.from({ length: 250 }, (_, k) => row(i + k)),
          );
    });
    after(() => t?.close());

    it('the manifest counts are of one instant (every write adds one row to each collection); writers are not blocked', async () => {
      let stop = false;
      let pairs = 0;
      const errors: unknown[] = [];
      // Each write adds one entry to alpha and one to beta in one transaction: at any instant the counts are equal.
      const writer = (async () => {
        while (!stop) {
          try {
            await sequelize.transaction(async (transaction: unknown) => {
              await insert('cms_c_alpha', [row(-1)], transaction);
              await insert('cms_c_beta', [row(-1)], transaction);
            });
            pairs++;
          } catch (err) {
            errors.push(err);
          }
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
      // An HTTP writer too: never a 503 DATABASE_BUSY while the backup runs.
      const statuses: number[] = [];
      const httpWriter = (async () => {
        for (let i = 0; !stop; i++)
          statuses.push(
            (await t.request('/api/collections/alpha', { method: 'POST', identity: 'admin', json: { title: `w${i}` } })).status,
          );
      })();
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      const pairsAtStart = pairs;
      const httpAtStart = statuses.length;
      const res = await t.request('/api/backups/create', { method: 'POST', identity: 'admin', json: { encrypt: false } });
      const body = await res.json();
      const ms = Date.now() - started;
      const pairsDuring = pairs - pairsAtStart;
      const httpDuring = statuses.length - httpAtStart;
      stop = true;
      await writer;
      await httpWriter;
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(errors.map(String)).to.deep.equal([]);
      expect(statuses.filter((s) => s !== 201)).to.deep.equal([]);
      const dir = join(t.dataDir, 'backups', `${body.data.backupId}.svelty-backup`);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
      const rows = Object.fromEntries(manifest.collections.map((c: any) => [c.name, c.rows]));
      const httpInBackup = (readFileSync(join(dir, 'content', 'alpha.ndjson'), 'utf8').match(/"f_title":"w\d+"/g) ?? []).length;
      // beta only gets the pair writes; alpha gets the pairs plus the HTTP entries (titled w<i>).
      expect(rows.alpha - httpInBackup, `alpha ${rows.alpha} (${httpInBackup} by HTTP), beta ${rows.beta}`).to.equal(rows.beta);
      expect(rows.beta).to.be.at.least(SEED);
      const finalBeta = await count('cms_c_beta');
      // Writes committed while the backup ran, after its snapshot: not in the backup, and they were not blocked.
      expect(finalBeta, 'pairs written after the snapshot').to.be.greaterThan(rows.beta);
      expect(pairsDuring, 'pairs written during the backup').to.be.greaterThan(0);
      expect(httpDuring, 'HTTP entries written during the backup').to.be.greaterThan(0);
      console.log(
        `      backup of ${rows.alpha + rows.beta} rows in ${ms} ms; meanwhile ${pairsDuring} pair writes (${Math.round((pairsDuring * 1000) / ms)}/s) and ${httpDuring} HTTP entries (${Math.round((httpDuring * 1000) / ms)}/s)`,
      );
    });
  });
}

describe('backups: background create at the threshold (sqlite)', function () {
  this.timeout(60000);
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({
      plugins: [fixturePlugin('test-identity')],
      config: { plugins: { options: { backups: { inlineThreshold: 5 } } } },
    });
    await t.request('/api/collections', {
      method: 'POST',
      identity: 'admin',
      json: { name: 'posts', fields: [{ name: 'title', type: 'text' }] },
    });
    for (let i = 0; i < 6; i++) await t.request('/api/collections/posts', { method: 'POST', identity: 'admin', json: { title: `P${i}` } });
  });
  after(() => t?.close());

  /** The backup job as listed once it has completed or failed (or as last seen after 200 polls). */
  async function backupJobWhenDone(jobId: string): Promise<any> {
    let job: any;
    for (let i = 0; i < 200; i++) {
      job = (await (await t.request(`/api/backups/jobs?jobId=${jobId}`, { identity: 'admin' })).json()).data.jobs[0];
      if (job && (job.status === 'completed' || job.status === 'failed')) break;
      await new Promise((res) => setTimeout(res, 50));
    }
    return job;
  }

  it('answers 202 with backupId and jobId; the job completes and the backup is listed', async () => {
    const r = await t.request('/api/backups/create', { method: 'POST', identity: 'admin', json: { passphrase: 'pw-for-job' } });
    expect(r.status).to.equal(202);
    const { backupId, jobId } = (await r.json()).data;
    const job = await backupJobWhenDone(jobId);
    expect(job).to.include({ status: 'completed', backupId, domain: 'backup' });
    const list = (await (await t.request('/api/backups', { identity: 'admin' })).json()).data.backups;
    expect(list[0]).to.include({ backupId, entries: 6, encrypted: true, encryption: 'passphrase' });
  });

  it('without a passphrase the background job encrypts with the installation key; it validates without one', async () => {
    const r = await t.request('/api/backups/create', { method: 'POST', identity: 'admin', json: {} });
    expect(r.status).to.equal(202);
    const { backupId, jobId } = (await r.json()).data;
    const job = await backupJobWhenDone(jobId);
    expect(job, JSON.stringify(job)).to.include({ status: 'completed', backupId });
    const list = (await (await t.request('/api/backups', { identity: 'admin' })).json()).data.backups;
    expect(list.find((b: any) => b.backupId === backupId)).to.include({ entries: 6, encrypted: true, encryption: 'installation' });
    const valid = await t.request('/api/backups/validate', { method: 'POST', identity: 'admin', json: { backupId } });
    expect((await valid.json()).data).to.deep.equal({ valid: true, problems: [] });
  });
});

describe('backups: maintenance on every instance (two kernels, one MariaDB, one Redis)', function () {
  this.timeout(60000);
  let a: TestKernel;
  let b: TestKernel;
  before(async function () {
    const variant = DB_VARIANTS.find((v) => v.name === 'mariadb')!;
    requireVariant(this, variant);
    if (!REDIS_URL) return this.skip();
    const redis = { url: REDIS_URL, prefix: uniqueName('cmsbk') };
    a = await startTestKernel({ db: 'mariadb', plugins: [fixturePlugin('test-identity')], config: { redis } });
    b = await startTestKernel({ db: 'mariadb', dbUrl: a.dbUrl, plugins: [fixturePlugin('test-identity')], config: { redis } });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('a restore flag raised on one instance makes the other answer 503 MAINTENANCE; its end reopens it', async () => {
    const m = a.kernel.container.resolve<any>('backupsMaintenance');
    await m.begin('test');
    try {
      let status = 0;
      for (let i = 0; i < 50 && status !== 503; i++) {
        status = (await b.request('/api/collections', { identity: 'editor' })).status;
        if (status !== 503) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).to.equal(503);
      expect((await b.request('/api/collections', { identity: 'admin' })).status).to.equal(200);
    } finally {
      await m.end();
    }
    let status = 503;
    for (let i = 0; i < 50 && status === 503; i++) {
      status = (await b.request('/api/collections', { identity: 'editor' })).status;
      if (status === 503) await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).to.equal(200);
  });
});

import { expect } from 'chai';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sequelize } from 'sequelize';
import type { BusEvent, EventBus } from '../../kernel/events.js';
import type { Registries } from '../../kernel/registries/index.js';
import type { DataDomainDefinition } from '../../plugins/data-ops/public.js';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, startTestKernel, tempDir, writePlugin, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

/** A plugin that declares a data migration through the registry, and an identity with migration:read only. */
function declaringPlugin(root: string): string {
  return writePlugin(
    root,
    { id: 'test-mig-declarer', provides: { dataMigrations: ['2026-01-01-plugin-backfill'], identityResolvers: ['mig-reader'] } },
    `
export default {
  register({ registries }) {
    registries.dataMigrations.add({
      id: '2026-01-01-plugin-backfill', description: 'Backfills kind', collection: 'articles',
      steps: [{ op: 'backfill', field: 'kind', value: 'article' }],
    });
    registries.identityResolvers.add({
      id: 'mig-reader', priority: 200,
      async resolve(ctx) {
        if (ctx.get('x-mig-identity') !== 'reader') return null;
        return { kind: 'user', userId: 'user-mig-reader', role: 'mig-reader', permissions: ['migration:read', 'content:read'], tenantId: 'default' };
      },
    });
  },
};
`,
  );
}

const ARTICLES = {
  name: 'articles',
  fields: [
    { name: 'title', type: 'text' },
    { name: 'headline', type: 'text' },
    { name: 'code', type: 'text', unique: true },
    { name: 'priceText', type: 'text' },
    { name: 'price', type: 'number' },
    { name: 'category', type: 'text' },
    { name: 'kind', type: 'text' },
  ],
};
const PAGES = {
  name: 'pages',
  fields: [
    { name: 'headline', type: 'text' },
    { name: 'body', type: 'text' },
  ],
};

for (const variant of DB_VARIANTS) {
  describe(`data migrations (${variant.name})`, function () {
    this.timeout(60000);
    let t: TestKernel;
    let dataDir: string;
    let pluginRoot: string;
    const ids: Record<string, string> = {};
    const admin = () => as(t, 'admin');
    const folder = () => join(dataDir, 'migrations');
    const writeMigration = (name: string, body: unknown) =>
      writeFileSync(join(folder(), `${name}.json`), typeof body === 'string' ? body : JSON.stringify(body, null, 2));
    const reader = (path: string) => t.request(path, { headers: { 'x-mig-identity': 'reader' } });
    const entry = async (collection: string, id: string) => dataOf(await admin().get(`/api/collections/${collection}/${id}`));
    const planAndApply = async (body: unknown, confirmed = false) => {
      const plan = await dataOf(await admin().post('/api/migrations/plan', body));
      const res = await admin().post('/api/migrations/apply', {
        planId: plan.planId,
        planHash: plan.planHash,
        ...(confirmed ? { confirmed: true } : {}),
      });
      return { plan, res, body: await res.json() };
    };

    /** Entry events (on:*) published on the kernel's event bus since the last clear. */
    const events: BusEvent[] = [];
    const entryEvents = (name: string) =>
      events
        .filter((e) => e.name === name)
        .map((e) => e.payload as { tenantId: string; collection: string; entry: Record<string, any>; userId: string });
    /** Events are published after the commit: waits until `done` holds (or times out). */
    const eventually = async (done: () => boolean) => {
      for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const revisionsOf = async (collection: string, id: string) =>
      dataOf(await admin().get(`/api/collections/${collection}/${id}/revisions`));

    const RENAME = {
      id: '2026-11-25-a-rename-title',
      description: 'title becomes headline; categories lowercase',
      collection: 'articles',
      steps: [
        { op: 'renameField', from: 'title', to: 'headline' },
        { op: 'lowercase', field: 'category' },
        { op: 'trim', field: 'category' },
      ],
    };
    const CAST = {
      id: '2026-11-25-b-cast-price',
      collection: 'articles',
      steps: [
        { op: 'cast', field: 'priceText', to: 'number', into: 'price' },
        { op: 'mapValues', field: 'category', values: { news: 'updates' } },
      ],
    };

    before(async function () {
      requireVariant(this, variant);
      dataDir = tempDir();
      pluginRoot = tempDir('cms-mig-plugins-');
      mkdirSync(join(dataDir, 'migrations'), { recursive: true });
      writeMigration('a-rename', RENAME);
      writeMigration('broken', '{"id": "2026-11-25-broken", "steps": [');
      writeMigration('invalid', { id: 'Bad Id', steps: [] });
      t = await startTestKernel({ db: variant.name, dataDir, plugins: [fixturePlugin('test-identity'), declaringPlugin(pluginRoot)] });
      await dataOf(await admin().post('/api/collections', ARTICLES), 201);
      await dataOf(await admin().post('/api/collections', PAGES), 201);
      const rows = [
        ['one', { title: 'First', code: 'A1', priceText: '10.5', category: ' News ' }],
        ['two', { title: 'Second', code: 'A2', priceText: '3', category: 'GUIDE' }],
        ['three', { code: 'A3', category: 'news', kind: 'page', headline: 'Kept' }],
      ] as const;
      for (const [key, body] of rows) ids[key] = (await dataOf(await admin().post('/api/collections/articles', body), 201))._id;
      t.kernel.container.resolve<EventBus>('events').subscribe('*', (e) => {
        if (e.name.startsWith('on:')) events.push(e);
      });
    });
    after(async () => {
      await t?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (pluginRoot) rmSync(pluginRoot, { recursive: true, force: true });
    });

    it('status lists file and plugin migrations as pending and reports bad files without failing', async function () {
      const status = await dataOf(await admin().get('/api/migrations/status'));
      expect(status.pending.map((p: { id: string }) => p.id)).to.deep.equal(['2026-01-01-plugin-backfill', '2026-11-25-a-rename-title']);
      expect(status.pending[0]).to.include({ risk: 'safe', source: 'plugin:test-mig-declarer' });
      expect(status.pending[1]).to.include({ risk: 'warning', source: 'file:a-rename.json' });
      expect(status.applied).to.deep.equal([]);
      expect(status.errors.map((e: { source: string }) => e.source).sort()).to.deep.equal(['file:broken.json', 'file:invalid.json']);
      expect(status.errors.find((e: { source: string }) => e.source === 'file:broken.json').message).to.match(/not valid JSON/);
      // migration:read is enough for status and history, not for plan.
      expect((await reader('/api/migrations/status')).status).to.equal(200);
      expect((await reader('/api/migrations/history')).status).to.equal(200);
    });

    it('403 without the permissions, 400 on bad bodies and unknown ids', async function () {
      expect((await as(t, 'editor').get('/api/migrations/status')).status).to.equal(403);
      expect((await as(t, 'editor').post('/api/migrations/plan', {})).status).to.equal(403);
      expect((await as(t, 'editor').post('/api/migrations/verify', {})).status).to.equal(403);
      expect(
        (await t.request('/api/migrations/plan', { method: 'POST', headers: { 'x-mig-identity': 'reader' }, json: {} })).status,
      ).to.equal(403);
      for (const body of [{ ids: 'x' }, { ids: [] }, { other: 1 }, { ids: ['Bad Id'] }]) {
        const res = await admin().post('/api/migrations/plan', body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect((await res.json()).error).to.equal('VALIDATION_ERROR');
      }
      const unknown = await admin().post('/api/migrations/plan', { ids: ['2026-12-31-nope'] });
      expect(unknown.status).to.equal(400);
      expect((await unknown.json()).message).to.match(/2026-12-31-nope/);
      expect((await admin().post('/api/migrations/apply', {})).status).to.equal(400);
      expect((await admin().post('/api/migrations/verify', { ids: 5 })).status).to.equal(400);
    });

    it('plans with counts, risk and samples and changes nothing', async function () {
      const all = await dataOf(await admin().post('/api/migrations/plan', {}));
      expect(all).to.include({ domain: 'migration', mode: 'merge', risk: 'warning', requiresConfirmation: false });
      expect(all.operations).to.deep.equal([
        { action: 'update', type: 'migration', target: '2026-01-01-plugin-backfill', count: 2 },
        { action: 'update', type: 'migration', target: '2026-11-25-a-rename-title', count: 2 },
      ]);
      expect(all.blockedReasons).to.deep.equal([]);
      const samples = all.warnings
        .filter((w: { message: string }) => w.message === 'sample: 2026-11-25-a-rename-title')
        .map((w: { item: string }) => w.item);
      expect(samples).to.have.length(2);
      expect(samples).to.include(`${ids.one}: title "First" -> null, headline null -> "First", category " News " -> "news"`);
      const safe = await dataOf(await admin().post('/api/migrations/plan', { ids: ['2026-01-01-plugin-backfill'] }));
      expect(safe).to.include({ risk: 'safe' });
      expect(safe.operations[0].count).to.equal(2);
      expect(await entry('articles', ids.one)).to.include({ title: 'First', headline: null, category: ' News ' });
    });

    it('applies: renames and transforms the data once, records the ledger, and a second apply is refused or a no-op', async function () {
      // A cached list from before the apply must not survive it.
      expect(
        (await dataOf(await admin().get('/api/collections/articles?limit=10'))).items.find((e: { _id: string }) => e._id === ids.one),
      ).to.include({ headline: null });
      events.length = 0;
      const { plan, res, body } = await planAndApply({});
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(body.data).to.include({ planId: plan.planId, outcome: 'success' });
      // Entry events after the commit: on:update per changed entry and migration (backfill: one and two;
      // rename: one and two), with the content plugin's payload; three is unchanged.
      await eventually(() => entryEvents('on:update').length >= 4);
      const updates = entryEvents('on:update');
      expect(updates).to.have.length(4);
      expect(updates.map((u) => u.entry._id).sort()).to.deep.equal([ids.one, ids.one, ids.two, ids.two].sort());
      for (const u of updates) expect(u).to.include({ tenantId: 'default', collection: 'articles', userId: 'user-admin' });
      const lastOne = updates.filter((u) => u.entry._id === ids.one).at(-1)!;
      expect(lastOne.entry).to.include({ title: null, headline: 'First', category: 'news', kind: 'article' });
      expect(events.filter((e) => e.name !== 'on:update')).to.deep.equal([]);
      // One 'migrate' revision per migration that changed the entry, the newest with the new values and version.
      const current = await entry('articles', ids.one);
      const revisions = await revisionsOf('articles', ids.one);
      expect(revisions.map((r: { action: string }) => r.action)).to.deep.equal(['migrate', 'migrate', 'create']);
      expect(revisions[0]).to.include({ version: current.version, createdBy: 'user-admin' });
      expect(revisions[0].data).to.include({ _id: ids.one, title: null, headline: 'First', category: 'news', kind: 'article' });
      expect(revisions[0].data.version).to.equal(current.version);
      expect(revisions[1].data).to.include({ title: 'First', headline: null, kind: 'article' });
      expect(lastOne.entry.version).to.equal(current.version);
      expect((await revisionsOf('articles', ids.three)).map((r: { action: string }) => r.action)).to.deep.equal(['create']);
      expect(await entry('articles', ids.one)).to.include({ title: null, headline: 'First', category: 'news', kind: 'article' });
      expect(await entry('articles', ids.two)).to.include({ title: null, headline: 'Second', category: 'guide' });
      expect(await entry('articles', ids.three)).to.include({ headline: 'Kept', category: 'news', kind: 'page' });
      // The list (cached before the apply) shows the new values.
      const list = await dataOf(await admin().get('/api/collections/articles?limit=10'));
      expect(list.items.find((e: { _id: string }) => e._id === ids.one)).to.include({ headline: 'First' });

      const status = await dataOf(await reader('/api/migrations/status'));
      expect(status.pending).to.deep.equal([]);
      expect(status.applied.map((a: { id: string; planHash: string }) => [a.id, a.planHash])).to.deep.equal([
        ['2026-01-01-plugin-backfill', plan.planHash],
        ['2026-11-25-a-rename-title', plan.planHash],
      ]);
      const history = await dataOf(await reader('/api/migrations/history'));
      const rename = history.history.find((h: { id: string }) => h.id === '2026-11-25-a-rename-title');
      expect(rename).to.include({ planId: plan.planId, planHash: plan.planHash, actor: 'user-admin', source: 'file:a-rename.json' });
      expect(rename.counts).to.deep.equal({ updated: 2, moved: 0 });
      expect(rename.checksum).to.match(/^[0-9a-f]{64}$/);

      // The same plan again: refused by the engine.
      const again = await admin().post('/api/migrations/apply', { planId: plan.planId });
      expect(again.status).to.equal(409);
      expect((await again.json()).error).to.equal('PLAN_ALREADY_APPLIED');
      // A plan naming an applied migration is blocked.
      const named = await dataOf(await admin().post('/api/migrations/plan', { ids: ['2026-11-25-a-rename-title'] }));
      expect(named.blockedReasons.join(' ')).to.match(/already applied/);
      const blocked = await admin().post('/api/migrations/apply', { planId: named.planId });
      expect(blocked.status).to.equal(400);
      expect((await blocked.json()).error).to.equal('PLAN_BLOCKED');
      // Nothing pending: an empty plan, applied as a no-op.
      const empty = await planAndApply({});
      expect(empty.plan.operations).to.deep.equal([]);
      expect(empty.res.status).to.equal(200);
      expect((await dataOf(await reader('/api/migrations/history'))).history).to.have.length(2);
    });

    it('refuses to run an applied migration again even past the engine (the ledger check and its unique key)', async function () {
      const history = (await dataOf(await admin().get('/api/migrations/history'))).history;
      const rename = history.find((h: { id: string }) => h.id === RENAME.id);
      const domain = t.kernel.container.resolve<Registries>('registries').dataDomains.get('migration') as unknown as DataDomainDefinition;
      const identity = { kind: 'user' as const, userId: 'user-admin', role: 'admin', permissions: [], tenantId: 'default' };
      const sequelize = t.kernel.container.resolve<Sequelize>('sequelize');
      const run = () =>
        sequelize.transaction((transaction) =>
          Promise.resolve(
            domain.apply(
              { action: 'update', type: 'migration', target: RENAME.id, payload: { id: RENAME.id, checksum: rename.checksum } },
              {
                tenantId: 'default',
                actor: { userId: 'user-admin', tenantId: 'default' },
                identity,
                logger: t.kernel.logger,
                transaction,
                plan: { planId: 'direct', planHash: 'direct' } as never,
              },
            ),
          ),
        );
      const refused = await run().then(
        () => null,
        (err: Error & { code?: string }) => err,
      );
      expect(refused?.code).to.equal('CONFLICT');
      expect(refused?.message).to.match(/already applied/);
      // The unique key on (tenant, migration id) holds even without that check.
      const insert = () =>
        sequelize.query(
          'INSERT INTO cms_data_migrations_ledger (tenant_id, migration_id, plan_id, plan_hash, checksum, source, actor, counts, applied_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          { replacements: ['default', RENAME.id, 'p', 'h', rename.checksum, 'test', null, '{}', Date.now()] },
        );
      expect(
        await insert().then(
          () => null,
          (err: Error) => err.name,
        ),
      ).to.equal('SequelizeUniqueConstraintError');
    });

    it('verify passes, then detects an edited definition and a broken postcondition', async function () {
      expect(await dataOf(await admin().post('/api/migrations/verify', {}))).to.deep.equal({ ok: true, discrepancies: [] });
      writeMigration('a-rename', { ...RENAME, steps: [...RENAME.steps, { op: 'backfill', field: 'kind', value: 'x' }] });
      const changed = await dataOf(await admin().post('/api/migrations/verify', {}));
      expect(changed.ok).to.equal(false);
      expect(changed.discrepancies.join(' ')).to.match(/2026-11-25-a-rename-title: definition changed/);
      expect((await dataOf(await admin().get('/api/migrations/status'))).discrepancies.join(' ')).to.match(/definition changed/);
      writeMigration('a-rename', RENAME);
      // An entry written with the old field breaks the rename's postcondition.
      await dataOf(await admin().post('/api/collections/articles', { title: 'Late', code: 'A4' }), 201);
      const post = await dataOf(await admin().post('/api/migrations/verify', { ids: ['2026-11-25-a-rename-title'] }));
      expect(post.ok).to.equal(false);
      expect(post.discrepancies.join(' ')).to.match(/postcondition failed: 1 entry would still change/);
    });

    it('blocks a plan whose cast fails, naming the entry', async function () {
      writeMigration('b-cast', CAST);
      await dataOf(await admin().patch(`/api/collections/articles/${ids.two}`, { priceText: 'n/a' }));
      const plan = await dataOf(await admin().post('/api/migrations/plan', { ids: [CAST.id] }));
      expect(plan.blockedReasons.join(' ')).to.match(new RegExp(`entry ${ids.two}: cannot cast "n/a" to a number`));
      const res = await admin().post('/api/migrations/apply', { planId: plan.planId });
      expect(res.status).to.equal(400);
      expect((await res.json()).error).to.equal('PLAN_BLOCKED');
      rmSync(join(folder(), 'b-cast.json'));
    });

    it('rolls back every row of every migration when a step fails during apply (a unique clash), and records nothing', async function () {
      // The first migration succeeds inside the transaction; the second clashes on the unique code field.
      writeMigration('c1-categories', {
        id: '2026-11-26-c1-categories',
        collection: 'articles',
        steps: [{ op: 'mapValues', field: 'category', values: { news: 'updates', guide: 'howto' } }],
      });
      writeMigration('c2-failing', {
        id: '2026-11-26-c2-failing',
        collection: 'articles',
        steps: [{ op: 'mapValues', field: 'code', values: { A1: 'A2' } }],
      });
      const before = (await dataOf(await admin().get('/api/collections/articles?limit=50'))).items.map((e: Record<string, unknown>) => [
        e._id,
        e.category,
        e.code,
      ]);
      const revisionsBefore = await revisionsOf('articles', ids.one);
      events.length = 0;
      const { plan, res, body } = await planAndApply({ ids: ['2026-11-26-c1-categories', '2026-11-26-c2-failing'] });
      expect(plan.blockedReasons).to.deep.equal([]);
      expect(plan.operations.map((o: { count: number }) => o.count)).to.deep.equal([3, 1]);
      if (res.status === 200) expect(body.data.outcome).to.equal('rollback');
      else expect(res.status).to.be.within(400, 599);
      const after = (await dataOf(await admin().get('/api/collections/articles?limit=50'))).items.map((e: Record<string, unknown>) => [
        e._id,
        e.category,
        e.code,
      ]);
      expect(after).to.deep.equal(before);
      // The rolled-back apply wrote no revision and published no entry event.
      expect(await revisionsOf('articles', ids.one)).to.deep.equal(revisionsBefore);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(events).to.deep.equal([]);
      const status = await dataOf(await admin().get('/api/migrations/status'));
      expect(status.pending.map((p: { id: string }) => p.id)).to.include.members(['2026-11-26-c1-categories', '2026-11-26-c2-failing']);
      expect(status.applied.map((p: { id: string }) => p.id)).to.not.include.members(['2026-11-26-c1-categories']);
      rmSync(join(folder(), 'c1-categories.json'));
      rmSync(join(folder(), 'c2-failing.json'));
    });

    it('moves entries between collections: destructive, needs confirmation, keeps ids and slugs', async function () {
      writeMigration('d-move', {
        id: '2026-11-27-d-move-pages',
        description: 'Articles of kind page become pages',
        steps: [{ op: 'move', collection: 'articles', where: { kind: 'page' }, to: 'pages', fields: { category: 'body' } }],
      });
      const moved = await entry('articles', ids.three);
      const plan = await dataOf(await admin().post('/api/migrations/plan', { ids: ['2026-11-27-d-move-pages'] }));
      expect(plan).to.include({ risk: 'destructive', requiresConfirmation: true });
      expect(plan.operations[0].count).to.equal(1);
      expect(plan.warnings.map((w: { message: string }) => w.message).join(' ')).to.match(/values of code, kind are dropped/);
      const unconfirmed = await admin().post('/api/migrations/apply', { planId: plan.planId });
      expect(unconfirmed.status).to.equal(409);
      expect((await unconfirmed.json()).error).to.equal('CONFIRMATION_REQUIRED');
      events.length = 0;
      const res = await admin().post('/api/migrations/apply', { planId: plan.planId, confirmed: true });
      expect((await res.json()).data.outcome).to.equal('success');
      // A move: on:delete in the source (the entry as it was), on:create in the target, and a 'migrate'
      // revision in the target on top of the revisions that followed the entry.
      await eventually(() => events.length >= 2);
      expect(events.map((e) => e.name).sort()).to.deep.equal(['on:create', 'on:delete']);
      expect(entryEvents('on:delete')[0]).to.deep.include({ collection: 'articles', userId: 'user-admin' });
      expect(entryEvents('on:delete')[0]!.entry).to.include({ _id: ids.three, code: 'A3', kind: 'page', version: moved.version });
      expect(entryEvents('on:create')[0]).to.deep.include({ collection: 'pages', userId: 'user-admin' });
      expect(entryEvents('on:create')[0]!.entry).to.include({ _id: ids.three, headline: 'Kept', body: 'news', version: moved.version + 1 });
      const movedRevisions = await revisionsOf('pages', ids.three);
      expect(movedRevisions.map((r: { action: string }) => r.action)).to.deep.equal(['migrate', 'create']);
      expect(movedRevisions[0]).to.include({ version: moved.version + 1, createdBy: 'user-admin' });
      expect(movedRevisions[0].data).to.include({ _id: ids.three, headline: 'Kept', body: 'news' });
      expect((await admin().get(`/api/collections/articles/${ids.three}`)).status).to.equal(404);
      expect(await entry('pages', ids.three)).to.include({ headline: 'Kept', body: 'news', slug: moved.slug });
      expect(await dataOf(await admin().post('/api/migrations/verify', { ids: ['2026-11-27-d-move-pages'] }))).to.deep.equal({
        ok: true,
        discrepancies: [],
      });
    });
  });
}

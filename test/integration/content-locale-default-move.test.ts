import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'safe-stable-stringify';
import { QueryTypes, Sequelize } from 'sequelize';
import { startChildInstance } from '../helpers/content-sync-rig.js';
import { fixturePlugin, startTestKernel, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { createMariaDbDatabase, DB_VARIANTS, requireVariant } from '../helpers/services.js';

// A change of the default locale is crash-safe (docs/features/localisation.md, locale-default-move.ts): its progress
// is recorded batch by batch, so a change interrupted half-way (a batch failing, the process killed) keeps its record
// and the next start completes it; reads then answer what they answered before the change, as after an uninterrupted
// one. Configuration promotion that changes the default moves the values the same way.
type Entry = Record<string, any>;
type Call = (method: string, path: string, json?: unknown) => Promise<{ status: number; body: any }>;
const LOCALES = ['en', 'de', 'de-AT'];
const MANY = {
  name: 'many',
  fields: [
    { name: 'title', type: 'text', localized: true },
    { name: 'seo', type: 'json', localized: true },
    { name: 'n', type: 'number' },
  ],
};

const callOf =
  (t: TestKernel): Call =>
  async (method, path, json) => {
    const res = await t.request(path, { method, identity: 'admin', ...(json !== undefined ? { json } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
async function ok(call: Call, method: string, path: string, json?: unknown): Promise<any> {
  const res = await call(method, path, json);
  expect([200, 201], `${method} ${path}: ${JSON.stringify(res.body)}`).to.include(res.status);
  return res.body.data;
}

/** de and de-AT (falling back to de); `count` entries of `many`, every 7th with de values, every 11th published in de. */
async function seed(call: Call, count: number): Promise<void> {
  await ok(call, 'POST', '/api/locales', { code: 'de' });
  await ok(call, 'POST', '/api/locales', { code: 'de-AT', fallback: 'de' });
  await ok(call, 'POST', '/api/collections', MANY);
  for (let from = 0; from < count; from += 100) {
    const entries = Array.from({ length: Math.min(100, count - from) }, (_, i) => ({
      title: `en ${from + i}`,
      seo: { n: from + i },
      n: from + i,
      status: (from + i) % 3 ? 'published' : 'draft',
    }));
    await ok(call, 'POST', '/api/collections/many/batch', { entries });
  }
  for (const e of await listed(call, 'en', count)) {
    if (e.n % 7 === 0) await ok(call, 'PATCH', `/api/collections/many/${e._id}?locale=de`, { title: `de ${e.n}` });
    if (e.n % 11 === 0) await ok(call, 'PATCH', `/api/collections/many/${e._id}?locale=de`, { seo: { de: e.n }, status: 'published' });
    if (e.n % 13 === 0) await ok(call, 'PATCH', `/api/collections/many/${e._id}?locale=de-AT`, { title: `at ${e.n}` });
  }
}

async function listed(call: Call, locale: string, count: number): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let page = 1; (page - 1) * 100 < count; page++)
    out.push(...(await ok(call, 'GET', `/api/collections/many?locale=${locale}&sort=n&limit=100&page=${page}`)).items);
  return out;
}

/**
 * Every entry as read in each locale (as a caller who may write): values and status, and for de-AT (not the default
 * before or after) which fields fell back. (`_locales` changes: the old default's values become a version.)
 */
async function readAll(call: Call, count: number): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const locale of LOCALES)
    for (const e of await listed(call, locale, count))
      out.push({
        locale,
        ...Object.fromEntries(['_id', 'title', 'seo', 'n', 'status'].map((k) => [k, e[k]])),
        ...(locale === 'de-AT' ? { _fallbackFields: e._fallbackFields } : {}),
      });
  return out;
}

const moves = (sequelize: Sequelize) => sequelize.query<Entry>('SELECT * FROM content_locale_moves', { type: QueryTypes.SELECT });

for (const variant of DB_VARIANTS) {
  describe(`content: a change of the default locale is crash-safe (${variant.name})`, function () {
    this.timeout(180000);
    let dataDir: string | undefined;
    let db: { url: string; drop(): Promise<void> } | undefined;
    const kernels: TestKernel[] = [];
    before(async function () {
      requireVariant(this, variant);
      if (variant.name === 'mariadb') db = await createMariaDbDatabase();
      else dataDir = mkdtempSync(join(tmpdir(), 'cms-locale-move-'));
    });
    after(async () => {
      for (const k of kernels) await k.close();
      await db?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });
    /** A kernel on the suite's one database (the same data on every start). */
    const start = async () => {
      const k = await startTestKernel({
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        ...(db ? { dbUrl: db.url } : { dataDir }),
      });
      kernels.push(k);
      return k;
    };

    it('a batch failing half-way keeps the progress; other changes wait (409); the next start completes it', async function () {
      const a = await start();
      const A = callOf(a);
      await seed(A, 450);
      const before = await readAll(A, 450);
      // The 250th entry by id (in the second batch of 200) cannot be written: the move stops there.
      const c = a.kernel.container.resolve<{ find(n: string): { table: string } }>('collections').find('many');
      const qi = a.kernel.sequelize.getQueryInterface();
      const table = qi.quoteIdentifier(c.table);
      const [victim] = await a.kernel.sequelize.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY id LIMIT 1 OFFSET 249`, {
        type: QueryTypes.SELECT,
      });
      const trigger =
        variant.name === 'sqlite'
          ? `CREATE TRIGGER cms_test_fail BEFORE UPDATE ON ${table} WHEN OLD.id = '${victim!.id}' BEGIN SELECT RAISE(ABORT, 'the batch fails'); END`
          : `CREATE TRIGGER cms_test_fail BEFORE UPDATE ON ${table} FOR EACH ROW BEGIN IF OLD.id = '${victim!.id}' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'the batch fails'; END IF; END`;
      await a.kernel.sequelize.query(trigger);
      const failed = await A('PATCH', '/api/locales/de', { isDefault: true });
      expect(failed.status, JSON.stringify(failed.body)).to.equal(500);
      // The record says how far it got: the first batch (200 entries) moved, the list unchanged.
      const [record] = await moves(a.kernel.sequelize);
      expect(record).to.include({ from_code: 'en', to_code: 'de', collection: 'many' });
      expect(Number(record!.step)).to.equal(1);
      expect(Number(record!.moved)).to.equal(200);
      expect((await ok(A, 'GET', '/api/locales')).find((l: Entry) => l.isDefault).code).to.equal('en');
      const refused = await A('PATCH', '/api/locales/de-AT', { name: 'Austrian' });
      expect(refused.status).to.equal(409);
      expect(refused.body.error).to.equal('CONFLICT');
      expect(refused.body.message).to.include("being changed from 'en' to 'de'");
      // Entries of collections with localized fields wait too (a write would mix the old default's values into rows the
      // move had passed); nothing is written. Other collections are written as always.
      const entryId = before[0]!._id;
      for (const [method, path, json] of [
        ['PATCH', `/api/collections/many/${entryId}`, { title: 'meanwhile' }],
        ['PATCH', `/api/collections/many/${entryId}?locale=de`, { title: 'inzwischen' }],
        ['POST', '/api/collections/many', { title: 'new', n: 9999 }],
        ['POST', '/api/collections/many/batch', { entries: [{ title: 'new', n: 9998 }] }],
      ] as const) {
        const held = await A(method, path, json);
        expect(held.status, `${method} ${path}`).to.equal(409);
        expect(held.body.error).to.equal('CONFLICT');
        expect(held.body.message).to.include('cannot be written until it is done');
      }
      await ok(A, 'POST', '/api/collections', { name: 'plain', fields: [{ name: 'title', type: 'text' }] });
      await ok(A, 'POST', '/api/collections/plain', { title: 'written meanwhile' });

      await a.kernel.sequelize.query('DROP TRIGGER cms_test_fail');
      await a.close();
      // The next start completes the change: every value and status as before, under its locale.
      const b = await start();
      const B = callOf(b);
      expect(await moves(b.kernel.sequelize)).to.deep.equal([]);
      expect((await ok(B, 'GET', '/api/locales')).find((l: Entry) => l.isDefault).code).to.equal('de');
      expect(await readAll(B, 450)).to.deep.equal(before);
      // And back, uninterrupted.
      await ok(B, 'PATCH', '/api/locales/en', { isDefault: true });
      expect(await readAll(B, 450)).to.deep.equal(before);
    });
  });

  describe(`content: configuration promotion that changes the default locale moves values (${variant.name})`, function () {
    this.timeout(120000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant, seed: () => seed(callOf(t), 250) });
    it('promoting a list whose default is another locale keeps every value under its locale, and back', async function () {
      const call = callOf(t);
      const before = await readAll(call, 250);
      const promote = async (defaultCode: string) => {
        const exported = await ok(call, 'POST', '/api/config/export', {});
        expect(exported).to.be.an('object');
        const file = join(t.dataDir, 'config', 'sync', 'locale', 'locales.json');
        const saved = JSON.parse(readFileSync(file, 'utf8'));
        const data = {
          locales: saved.data.locales.map((l: Entry) => ({
            ...l,
            isDefault: l.code === defaultCode,
            fallback: l.code === defaultCode ? null : l.fallback,
          })),
        };
        writeFileSync(file, JSON.stringify({ ...saved, data, checksum: createHash('sha256').update(stringify(data)!).digest('hex') }));
        const p = await ok(call, 'POST', '/api/config/plan', { types: ['locale'] });
        expect(p.blockedReasons).to.deep.equal([]);
        const applied = await ok(call, 'POST', '/api/config/apply', { planId: p.planId, planHash: p.planHash, confirmed: false });
        expect(applied.outcome, JSON.stringify(applied)).to.equal('success');
      };
      await promote('de');
      expect((await ok(call, 'GET', '/api/locales')).find((l: Entry) => l.isDefault).code).to.equal('de');
      expect(await readAll(call, 250)).to.deep.equal(before);
      await promote('en');
      expect(await readAll(call, 250)).to.deep.equal(before);
    });

    it('a backup restore that changes the default: the backup as it was; a collection made since keeps its values under their locales', async function () {
      const call = callOf(t);
      const before = await readAll(call, 250);
      const { backupId } = await ok(call, 'POST', '/api/backups/create', {});
      await ok(call, 'PATCH', '/api/locales/de', { isDefault: true });
      await ok(call, 'POST', '/api/collections', { name: 'later', fields: [{ name: 'title', type: 'text', localized: true }] });
      const ids: string[] = [];
      for (const n of [1, 2, 3]) {
        const made = await ok(call, 'POST', '/api/collections/later', { title: `de ${n}`, status: 'published' });
        ids.push(made._id);
        if (n !== 2) await ok(call, 'PATCH', `/api/collections/later/${made._id}?locale=en`, { title: `en ${n}` });
      }
      const later = async () => {
        const out: Entry[] = [];
        for (const locale of LOCALES)
          for (const id of ids) {
            const e = await ok(call, 'GET', `/api/collections/later/${id}?locale=${locale}`);
            out.push({ locale, title: e.title, status: e.status });
          }
        return out;
      };
      const laterBefore = await later();
      const plan = await ok(call, 'POST', '/api/backups/restore-plan', { backupId });
      expect(plan.blockedReasons).to.deep.equal([]);
      const done = await ok(call, 'POST', '/api/backups/restore', { planId: plan.planId, confirmed: true, planHash: plan.planHash });
      expect(done.outcome, JSON.stringify(done)).to.equal('success');
      expect((await ok(call, 'GET', '/api/locales')).find((l: Entry) => l.isDefault).code).to.equal('en');
      expect(await readAll(call, 250)).to.deep.equal(before);
      expect(await later()).to.deep.equal(laterBefore);
    });
  });
}

describe('content: a process killed (SIGKILL) in the middle of a change of the default locale (sqlite)', function () {
  this.timeout(300000);
  const dataDir = mkdtempSync(join(tmpdir(), 'cms-locale-kill-'));
  let restarted: TestKernel | undefined;
  after(async () => {
    await restarted?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the next start completes it: every value and status under its locale, as before', async function () {
    const COUNT = 3000;
    const child = await startChildInstance({ CS_DATA_DIR: dataDir });
    const C: Call = (method, path, json) => child.as('admin', method, path, json);
    await seed(C, COUNT);
    const before = await readAll(C, COUNT);
    const file = new Sequelize({ dialect: 'sqlite', storage: join(dataDir, 'cms.sqlite'), logging: false });
    try {
      const change = C('PATCH', '/api/locales/de', { isDefault: true }).catch(() => null);
      // Killed as soon as the record shows a batch moved (15 batches of 200 in all).
      const deadline = Date.now() + 60000;
      for (;;) {
        const [row] = await moves(file).catch(() => [] as Entry[]);
        if (row && Number(row.step) >= 1) break;
        if (Date.now() > deadline) throw new Error(`the change did not start:\n${child.output()}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      child.child.kill('SIGKILL');
      await new Promise((r) => child.child.once('exit', r));
      await change;
      const [left] = await moves(file);
      expect(left, 'the change was interrupted (its record is left)').to.not.equal(undefined);
      expect(Number(left!.moved)).to.be.within(200, COUNT - 200);
    } finally {
      await file.close();
    }
    restarted = await startTestKernel({ plugins: [fixturePlugin('test-identity')], dataDir });
    const R = callOf(restarted);
    expect(await moves(restarted.kernel.sequelize)).to.deep.equal([]);
    expect((await ok(R, 'GET', '/api/locales')).find((l: Entry) => l.isDefault).code).to.equal('de');
    expect(await readAll(R, COUNT)).to.deep.equal(before);
  });
});

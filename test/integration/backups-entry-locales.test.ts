import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueryTypes } from 'sequelize';
import { as, dataOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 36, "backups round-trip localised entries exactly": a backup carries every row of content_entry_locales
// (an entry's versions in other locales: values, status, who and when) and a restore puts them back as they were;
// a backup made before it carried them still restores (the versions here are left, with a warning).
type Entry = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`backups: entries' versions in other locales (${variant.name})`, function () {
    this.timeout(120000);
    let id = '';
    const t = useIdentityKernel(
      variant,
      {
        seed: async () => {
          const admin = as(t, 'admin');
          await dataOf(await admin.post('/api/locales', { code: 'de' }), 201);
          await dataOf(await admin.post('/api/locales', { code: 'fr' }), 201);
          await dataOf(
            await admin.post('/api/collections', {
              name: 'pages',
              fields: [
                { name: 'title', type: 'text', localized: true },
                { name: 'seo', type: 'json', localized: true },
                { name: 'price', type: 'number' },
              ],
            }),
            201,
          );
          id = (
            await dataOf(await admin.post('/api/collections/pages', { title: 'Hello', seo: { k: 1 }, price: 3, status: 'published' }), 201)
          )._id;
          await dataOf(await admin.patch(`/api/collections/pages/${id}?locale=de`, { title: 'Hallo', seo: { k: 'ä', n: [1, 2.5] } }));
          await dataOf(await admin.patch(`/api/collections/pages/${id}/status?locale=de`, { status: 'published' }));
          await dataOf(await admin.patch(`/api/collections/pages/${id}?locale=fr`, { title: 'Bonjour' }));
          // More versions than a page of the backup's reads (pageSize 10): 2 + 6 * 2 = 14 rows.
          for (let i = 0; i < 6; i++) {
            const more = (await dataOf(await admin.post('/api/collections/pages', { title: `Page ${i}`, price: i }), 201))._id;
            for (const locale of ['de', 'fr'])
              await dataOf(await admin.patch(`/api/collections/pages/${more}?locale=${locale}`, { title: `${locale} ${i}` }));
            if (i % 2) await dataOf(await admin.patch(`/api/collections/pages/${more}/status?locale=de`, { status: 'published' }));
          }
        },
      },
      { config: { logLevel: 'error', plugins: { options: { backups: { pageSize: 10 } } } } },
    );
    const rows = () =>
      t.kernel.sequelize.query<Entry>('SELECT * FROM content_entry_locales ORDER BY entry_id, locale', { type: QueryTypes.SELECT });
    const reads = async () => {
      const admin = as(t, 'admin');
      const out: Entry = {};
      for (const locale of ['en', 'de', 'fr', '*'])
        out[locale] = await dataOf(await admin.get(`/api/collections/pages/${id}?locale=${locale}`));
      return out;
    };
    const call = async (path: string, body: unknown) => {
      const res = await as(t, 'admin').post(path, body);
      const json = await res.json();
      expect(res.status, JSON.stringify(json)).to.equal(200);
      return json.data;
    };
    const restore = async (backupId: string, extra: Entry = {}) => {
      const plan = await call('/api/backups/restore-plan', { backupId, ...extra });
      expect(plan.blockedReasons).to.deep.equal([]);
      const done = await call('/api/backups/restore', { planId: plan.planId, confirmed: true, planHash: plan.planHash });
      expect(done.outcome).to.equal('success');
      expect(done.verify).to.deep.equal({ ok: true, discrepancies: [] });
      return plan;
    };

    it('a restore puts every version back exactly: values, status, updated_by and timestamps', async function () {
      const savedRows = await rows();
      expect(savedRows).to.have.length(14);
      expect(savedRows.filter((r) => r.entry_id === id).map((r) => [r.locale, r.status])).to.deep.equal([
        ['de', 'published'],
        ['fr', 'draft'],
      ]);
      const savedReads = await reads();
      expect(savedReads.de).to.include({ title: 'Hallo', status: 'published' });
      expect(savedReads.fr).to.include({ title: 'Bonjour', status: 'draft' });
      const { backupId } = await call('/api/backups/create', {});
      const admin = as(t, 'admin');
      // After the backup: one version changed, one deleted with its entry's status, a new entry with a version.
      await dataOf(await admin.patch(`/api/collections/pages/${id}?locale=de`, { title: 'Geändert' }));
      await dataOf(await admin.patch(`/api/collections/pages/${id}/status?locale=fr`, { status: 'published' }));
      const other = (await dataOf(await admin.post('/api/collections/pages', { title: 'Other' }), 201))._id;
      await dataOf(await admin.patch(`/api/collections/pages/${other}?locale=de`, { title: 'Andere' }));
      expect(await rows()).to.have.length(15);

      const plan = await restore(backupId);
      const ops = plan.operations.map((o: Entry) => `${o.action} ${o.type} ${o.count}`);
      expect(ops).to.include.members(['delete entry-locale 15', 'create entry-locale 14']);
      expect(await rows()).to.deep.equal(savedRows);
      expect(await reads()).to.deep.equal(savedReads);
    });

    it("keeps when the default locale's values last changed (the translations' out-of-date mark)", async function () {
      const admin = as(t, 'admin');
      const times = () =>
        t.kernel.sequelize.query<Entry>('SELECT * FROM content_entry_locale_times ORDER BY entry_id, locale', { type: QueryTypes.SELECT });
      // The default's values change after the translations were made: de and fr are out of date from here on.
      await new Promise((r) => setTimeout(r, 5));
      await dataOf(await admin.patch(`/api/collections/pages/${id}`, { title: 'Hello again' }));
      const saved = await dataOf(await admin.get(`/api/collections/pages/${id}?locale=*`));
      const savedTimes = await times();
      expect(savedTimes.map((r) => [r.entry_id, r.locale])).to.deep.include([id, 'en']);
      expect(Date.parse(saved._localeUpdatedAt.en)).to.be.above(Date.parse(saved._localeUpdatedAt.de));
      const { backupId } = await call('/api/backups/create', {});
      await new Promise((r) => setTimeout(r, 5));
      await dataOf(await admin.patch(`/api/collections/pages/${id}`, { title: 'Hello later' }));
      expect((await times()).find((r) => r.entry_id === id)?.values_at).to.not.equal(savedTimes.find((r) => r.entry_id === id)?.values_at);
      const plan = await restore(backupId);
      const ops = plan.operations.map((o: Entry) => `${o.action} ${o.type} ${o.count}`);
      expect(ops).to.include.members([`delete entry-locale-time ${savedTimes.length}`, `create entry-locale-time ${savedTimes.length}`]);
      expect(await times()).to.deep.equal(savedTimes);
      expect(await dataOf(await admin.get(`/api/collections/pages/${id}?locale=*`))).to.deep.equal(saved);
      // The revision written after the backup went with the state it described: the entry is edited again (before,
      // its next version collided with that revision and the edit failed with a 500).
      expect(ops).to.include('delete revision 1');
      const edited = await dataOf(await admin.patch(`/api/collections/pages/${id}`, { title: 'Hello once more' }));
      expect(edited.version).to.equal(saved.version + 1);
    });

    it('restores the versions of a collection the restore creates again', async function () {
      const savedRows = await rows();
      const savedReads = await reads();
      const { backupId } = await call('/api/backups/create', { encrypt: false });
      expect((await as(t, 'admin').delete('/api/collections/pages/schema')).status).to.be.oneOf([200, 204]);
      expect(await rows()).to.deep.equal([]);
      await restore(backupId);
      expect(await rows()).to.deep.equal(savedRows);
      expect(await reads()).to.deep.equal(savedReads);
    });

    it('a backup made before versions were carried restores; the versions here are left as they are, with a warning', async function () {
      const { backupId } = await call('/api/backups/create', { encrypt: false });
      const file = join(t.dataDir, 'backups', `${backupId}.svelty-backup`, 'manifest.json');
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      expect(manifest.entryLocales).to.include({ rows: 14, file: 'content-locales/entries.ndjson' });
      // As an older version wrote it: no entryLocales (and so no MAC of this installation: taken as foreign).
      delete manifest.entryLocales;
      delete manifest.mac;
      writeFileSync(file, JSON.stringify(manifest, null, 2));
      await dataOf(await as(t, 'admin').patch(`/api/collections/pages/${id}?locale=fr`, { title: 'Salut' }));
      const now = await rows();
      const plan = await restore(backupId, { foreign: true });
      expect(plan.operations.filter((o: Entry) => o.type === 'entry-locale')).to.deep.equal([]);
      expect(plan.warnings.map((w: Entry) => w.message).join(' ')).to.include('carries no versions of entries in other locales');
      expect(await rows()).to.deep.equal(now);
    });
  });
}

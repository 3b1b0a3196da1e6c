import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { AuditLog } from '../../kernel/audit.js';
import { as, createCollections, dataOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 36, locale lifecycle: deleting a locale deletes its entries' versions (audited, none left unreachable);
// changing the default locale keeps every value under its locale code (the row holds the default's values, so values
// move: the old default's into its version, the new default's into the row).
type Entry = Record<string, any>;
const FIELDS = ['_id', 'title', 'body', 'seo', 'price', 'status'];
/** de-AT falls back to de: every value it reads stays the same. fr falls back to the default: its own values stay. */
const LOCALES = ['en', 'de', 'de-AT', 'fr'];

for (const variant of DB_VARIANTS) {
  describe(`content: locale lifecycle (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const ids: string[] = [];
    const admin = () => as(t, 'admin');
    const versionRows = (locale: string) =>
      t.kernel.sequelize.query<Entry>('SELECT * FROM content_entry_locales WHERE locale = :locale', {
        replacements: { locale },
        type: QueryTypes.SELECT,
      });
    /** Every entry's values and status as read in each locale. */
    const readAll = async (locales = LOCALES) => {
      const out: Record<string, Entry[]> = {};
      for (const locale of locales) {
        out[locale] = [];
        for (const id of ids) {
          const e = await dataOf(await admin().get(`/api/collections/pages/${id}?locale=${locale}`));
          expect(e._locale).to.equal(locale);
          const fellBack = locale === 'fr' ? (e._fallbackFields as string[]) : [];
          out[locale]!.push(Object.fromEntries(FIELDS.filter((f) => !fellBack.includes(f)).map((f) => [f, e[f]])));
        }
      }
      return out;
    };

    before(async function () {
      await dataOf(await admin().post('/api/locales', { code: 'de' }), 201);
      await dataOf(await admin().post('/api/locales', { code: 'de-AT', fallback: 'de' }), 201);
      await dataOf(await admin().post('/api/locales', { code: 'fr' }), 201);
      await createCollections(t, {
        name: 'pages',
        fields: [
          { name: 'title', type: 'text', required: true, localized: true },
          { name: 'body', type: 'richtext', localized: true },
          { name: 'seo', type: 'json', localized: true },
          { name: 'price', type: 'number' },
        ],
      });
      const post = async (body: Entry) => (await dataOf(await admin().post('/api/collections/pages', body), 201))._id as string;
      const patch = (id: string, locale: string, body: Entry) => admin().patch(`/api/collections/pages/${id}?locale=${locale}`, body);
      ids.push(await post({ title: 'Hello', body: '<p>Hi</p>', seo: { k: 1 }, price: 3, status: 'published' }));
      ids.push(await post({ title: 'Only English', price: 4, status: 'published' }));
      ids.push(await post({ title: 'Draft', body: '<p>Draft</p>', price: 5 }));
      await dataOf(await patch(ids[0]!, 'de', { title: 'Hallo' }));
      await dataOf(await admin().patch(`/api/collections/pages/${ids[0]}/status?locale=de`, { status: 'published' }));
      await dataOf(await patch(ids[0]!, 'fr', { title: 'Bonjour', body: '<p>Salut</p>' }));
      await dataOf(await patch(ids[0]!, 'de-AT', { seo: { k: 'at' } }));
      await dataOf(await patch(ids[2]!, 'de', { title: 'Entwurf', seo: { d: true } }));
    });

    it('changing the default keeps every value and status under its locale code, and back again', async function () {
      const before = await readAll();
      expect(before.de![0]).to.include({ title: 'Hallo', body: '<p>Hi</p>', status: 'published' });
      expect(before['de-AT']![0]).to.deep.include({ title: 'Hallo', seo: { k: 'at' }, status: 'draft' });
      expect(before.de![1]).to.include({ title: 'Only English', status: 'draft' });
      const de = await dataOf(await admin().patch('/api/locales/de', { isDefault: true }));
      expect(de).to.deep.equal({ code: 'de', name: 'German', isDefault: true, fallback: null });
      expect(await readAll()).to.deep.equal(before);
      // What fr took from the default it now takes from de (its own values stayed).
      const fr = await dataOf(await admin().get(`/api/collections/pages/${ids[0]}?locale=fr`));
      expect(fr).to.deep.include({ title: 'Bonjour', body: '<p>Salut</p>', seo: { k: 1 }, _fallbackFields: ['seo'] });
      // The row holds de's values (as reads in de answered them), en's are its version.
      const row = await dataOf(await admin().get(`/api/collections/pages/${ids[0]}`));
      expect(row).to.include({ _locale: 'de', title: 'Hallo' });
      expect((await versionRows('en')).map((r) => r.entry_id).sort()).to.deep.equal([...ids].sort());
      expect(await versionRows('de')).to.deep.equal([]);

      await dataOf(await admin().patch('/api/locales/en', { isDefault: true }));
      expect(await readAll()).to.deep.equal(before);
      expect(await versionRows('en')).to.deep.equal([]);
      const audit = t.kernel.container.resolve<AuditLog>('audit');
      await audit.flush();
      const changes = await t.kernel.sequelize.query<{ details: string }>(
        "SELECT details FROM cms_audit_log WHERE action = 'locale.changed' ORDER BY id DESC LIMIT 2",
        { type: QueryTypes.SELECT },
      );
      expect(changes.map((c) => JSON.parse(c.details).entriesMoved)).to.deep.equal([3, 3]);
    });

    it("deleting a locale deletes its entries' versions (audited); created again, it starts empty", async function () {
      expect(await versionRows('fr')).to.have.length(1);
      const others = await readAll(['en', 'de', 'de-AT']);
      expect((await admin().delete('/api/locales/fr')).status).to.equal(200);
      expect(await versionRows('fr')).to.deep.equal([]);
      expect(await readAll(['en', 'de', 'de-AT'])).to.deep.equal(others);
      const audit = t.kernel.container.resolve<AuditLog>('audit');
      await audit.flush();
      const [deleted] = await t.kernel.sequelize.query<{ details: string }>(
        "SELECT details FROM cms_audit_log WHERE action = 'locale.deleted' ORDER BY id DESC LIMIT 1",
        { type: QueryTypes.SELECT },
      );
      expect(JSON.parse(deleted!.details)).to.include({ versionsDeleted: 1 });
      await dataOf(await admin().post('/api/locales', { code: 'fr' }), 201);
      const fr = await dataOf(await admin().get(`/api/collections/pages/${ids[0]}?locale=fr`));
      expect(fr).to.include({ title: 'Hello', status: 'draft' });
      expect(fr._locales).to.deep.equal(['en', 'de', 'de-AT']);
    });

    it('moves the values of more entries than one batch (200): every one reads the same under its locale', async function () {
      await createCollections(t, {
        name: 'many',
        fields: [
          { name: 'title', type: 'text', localized: true },
          { name: 'n', type: 'number' },
        ],
      });
      for (let from = 0; from < 250; from += 100) {
        const batch = Array.from({ length: Math.min(100, 250 - from) }, (_, i) => ({
          title: `en ${from + i}`,
          n: from + i,
          status: 'published',
        }));
        await dataOf(await admin().post('/api/collections/many/batch', { entries: batch }), 201);
      }
      const page = async (locale: string, p: number) =>
        (await dataOf(await admin().get(`/api/collections/many?locale=${locale}&sort=n&limit=100&page=${p}`))).items as Entry[];
      const first = await page('en', 1);
      const last = await page('en', 3);
      for (const e of [first[0]!, first[99]!, last[49]!])
        await dataOf(await admin().patch(`/api/collections/many/${e._id}?locale=de`, { title: `de ${e.n}` }));
      const readMany = async () => {
        const out: Entry[] = [];
        for (const locale of ['en', 'de'])
          for (let p = 1; p <= 3; p++)
            for (const e of await page(locale, p)) out.push({ locale, id: e._id, title: e.title, status: e.status });
        return out;
      };
      const before = await readMany();
      expect(before).to.have.length(500);
      expect(before.filter((e) => e.locale === 'de' && e.title.startsWith('de '))).to.have.length(3);
      await dataOf(await admin().patch('/api/locales/de', { isDefault: true }));
      expect(await readMany()).to.deep.equal(before);
      await dataOf(await admin().patch('/api/locales/en', { isDefault: true }));
      expect(await readMany()).to.deep.equal(before);
    });
  });
}

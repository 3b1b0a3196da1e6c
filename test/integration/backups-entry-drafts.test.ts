import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { as, dataOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Working drafts in backups (docs/features/drafts.md): a backup carries every row of content_entry_drafts of its
// collections, and a restore puts them back as they were (the drafts made after the backup go).
type Row = Record<string, any>;

for (const variant of DB_VARIANTS) {
  describe(`backups: working drafts (${variant.name})`, function () {
    this.timeout(120000);
    const ids: string[] = [];
    const t = useIdentityKernel(
      variant,
      {
        seed: async () => {
          const admin = as(t, 'admin');
          await dataOf(
            await admin.post('/api/collections', { name: 'pages', drafts: true, fields: [{ name: 'title', type: 'text' }] }),
            201,
          );
          // More drafts than a page of the backup's reads (pageSize 10).
          for (let i = 0; i < 12; i++) {
            const id = (await dataOf(await admin.post('/api/collections/pages', { title: `Page ${i}`, status: 'published' }), 201))._id;
            ids.push(id);
            if (i < 11) await dataOf(await admin.put(`/api/collections/pages/${id}/draft`, { title: `Draft ${i}` }));
          }
        },
      },
      { config: { plugins: { options: { backups: { pageSize: 10 } } } } },
    );
    const rows = () =>
      t.kernel.sequelize.query<Row>('SELECT * FROM content_entry_drafts ORDER BY entry_id, locale', { type: QueryTypes.SELECT });
    const call = async (path: string, body: unknown) => {
      const res = await as(t, 'admin').post(path, body);
      const json = await res.json();
      expect(res.status, JSON.stringify(json)).to.equal(200);
      return json.data;
    };

    it('a restore puts the drafts back exactly and drops those made since', async function () {
      const saved = await rows();
      expect(saved).to.have.length(11);
      const { backupId } = await call('/api/backups/create', {});
      const admin = as(t, 'admin');
      await dataOf(await admin.put(`/api/collections/pages/${ids[0]}/draft`, { title: 'Changed since' }));
      await dataOf(await admin.delete(`/api/collections/pages/${ids[1]}/draft`));
      await dataOf(await admin.put(`/api/collections/pages/${ids[11]}/draft`, { title: 'New since' }));
      const plan = await call('/api/backups/restore-plan', { backupId });
      expect(plan.blockedReasons).to.deep.equal([]);
      const ops = plan.operations.map((o: Row) => `${o.action} ${o.type} ${o.count}`);
      expect(ops).to.include.members(['delete entry-draft 11', 'create entry-draft 11']);
      const done = await call('/api/backups/restore', { planId: plan.planId, confirmed: true, planHash: plan.planHash });
      expect(done.outcome).to.equal('success');
      expect(done.verify).to.deep.equal({ ok: true, discrepancies: [] });
      expect(await rows()).to.deep.equal(saved);
      expect((await dataOf(await admin.get(`/api/collections/pages/${ids[0]}/draft`))).title).to.equal('Draft 0');
      expect((await dataOf(await admin.get(`/api/collections/pages/${ids[1]}/draft`))).title).to.equal('Draft 1');
      expect((await admin.get(`/api/collections/pages/${ids[11]}/draft`)).status).to.equal(404);
    });
  });
}

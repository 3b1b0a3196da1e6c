import { expect } from 'chai';
import { QueryTypes, type Sequelize } from 'sequelize';
import { CONTENT_MIGRATIONS } from '../../plugins/content/migrations.js';
import { as, createCollections, dataOf, entryMaker } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35, "Speed and memory": every one-relation is indexed by the schema, so a filter through it reads the index
// (bench case 19 measures it). An installation whose tables were made before gets the index from content migration
// 0007, and a schema change that drops such a relation works whether its table has the index or not.
for (const variant of DB_VARIANTS) {
  describe(`content: one-relations are indexed (${variant.name})`, function () {
    this.timeout(120000);
    const ids: Record<string, string> = {};
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await createCollections(
          t,
          { name: 'people', fields: [{ name: 'name', type: 'text' }] },
          {
            name: 'notes',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'author', type: 'relation', collection: 'people' },
              { name: 'tags', type: 'relation', collection: 'people', cardinality: 'many' },
            ],
          },
        );
        const made = entryMaker(t);
        ids.ada = await made('people', { name: 'Ada' });
        ids.bob = await made('people', { name: 'Bob' });
        await made('notes', { title: 'One', author: ids.ada });
        await made('notes', { title: 'Two', author: ids.bob });
      },
    });
    const sequelize = () => t.kernel.container.resolve<Sequelize>('sequelize');
    const notesTable = async () =>
      (
        await sequelize().query<{ uid: string; table_name: string }>(
          "SELECT uid, table_name FROM content_collections WHERE name = 'notes'",
          {
            type: QueryTypes.SELECT,
          },
        )
      )[0]!;
    const indexNames = async (table: string) =>
      ((await sequelize().getQueryInterface().showIndex(table)) as Array<{ name: string }>).map((i) => i.name);
    const titlesBy = async (name: string) => {
      const filter = encodeURIComponent(JSON.stringify({ 'author.name': name }));
      return (await dataOf(await as(t, 'editor').get(`/api/collections/notes?filter=${filter}`))).items.map(
        (e: { title: string }) => e.title,
      );
    };

    it('every table has the author index (a count under an own-or-published rule reads it); 0016 gives a table made without it the index', async function () {
      const { uid, table_name: table } = await notesTable();
      const index = `ix_${uid.slice(0, 8)}_author`;
      expect(await indexNames(table)).to.include(index);
      const qi = sequelize().getQueryInterface();
      await qi.removeIndex(table, index);
      expect(await indexNames(table)).not.to.include(index);
      const migration = CONTENT_MIGRATIONS.find((m) => m.name === '0016-entry-author-index')!;
      const run = () => migration.up({ sequelize: sequelize(), queryInterface: qi, DataTypes: {} as never });
      await run();
      expect(await indexNames(table)).to.include(index);
      // Run again (a table that already has it): nothing added twice, no error.
      await run();
      expect((await indexNames(table)).filter((n) => n === index)).to.have.length(1);
      // Lists read as before.
      expect(await titlesBy('Ada')).to.deep.equal(['One']);
    });

    it('indexes a one-relation (not a many-relation); 0007 gives a table made without it the index; dropping the field works either way', async function () {
      const { uid, table_name: table } = await notesTable();
      const index = `ix_${uid.slice(0, 8)}_f_author`;
      expect(await indexNames(table)).to.include(index);
      expect(await indexNames(table)).not.to.include(`ix_${uid.slice(0, 8)}_f_tags`);
      expect(await titlesBy('Ada')).to.deep.equal(['One']);
      // A table as made before relations were indexed: 0007 (run again here) adds the index, and nothing else.
      const qi = sequelize().getQueryInterface();
      await qi.removeIndex(table, index);
      const migration = CONTENT_MIGRATIONS.find((m) => m.name === '0007-relation-indexes')!;
      await migration.up({ sequelize: sequelize(), queryInterface: qi, DataTypes: (await import('sequelize')).DataTypes });
      expect(await indexNames(table)).to.include(index);
      expect(await titlesBy('Bob')).to.deep.equal(['Two']);
      // Without the index again, the relation can still be dropped from the schema.
      await qi.removeIndex(table, index);
      const fields = (await dataOf(await as(t, 'admin').get('/api/collections/notes/schema'))).fields as Array<{ name: string }>;
      const kept = fields.filter((f) => f.name !== 'author');
      const plan = await dataOf(await as(t, 'admin').post('/api/collections/notes/schema/plan', { fields: kept }));
      const done = await dataOf(await as(t, 'admin').patch('/api/collections/notes/schema', { fields: kept, planHash: plan.planHash }));
      expect(done.fields.map((f: { name: string }) => f.name)).to.deep.equal(['title', 'tags']);
    });
  });
}

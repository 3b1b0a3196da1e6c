import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import { as, createCollections, dataOf, entryMaker } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { countStatements } from '../helpers/sql-statements.js';

// Issue 35, "Speed and memory": a list with `populate` of two one-relations and one many-relation issues at most 4
// SQL statements (the page with its total, then one query per populated target collection), and the count does not grow with
// the page size (no N+1). Statements are counted with SQLite's trace hook or Sequelize's logging hook on MariaDB
// (test/helpers/sql-statements.ts), a count, not a timing.
for (const variant of DB_VARIANTS) {
  describe(`content: populate issues a bounded number of SQL statements (${variant.name})`, function () {
    this.timeout(120000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await createCollections(
          t,
          { name: 'people', fields: [{ name: 'name', type: 'text' }] },
          { name: 'topics', fields: [{ name: 'name', type: 'text' }] },
          {
            name: 'stories',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'author', type: 'relation', collection: 'people' },
              { name: 'editor', type: 'relation', collection: 'people' },
              { name: 'topics', type: 'relation', collection: 'topics', cardinality: 'many' },
            ],
          },
        );
        const made = entryMaker(t);
        const people: string[] = [];
        const topics: string[] = [];
        for (let i = 0; i < 5; i++) people.push(await made('people', { name: `Person ${i}` }));
        for (let i = 0; i < 5; i++) topics.push(await made('topics', { name: `Topic ${i}` }));
        const entries = Array.from({ length: 100 }, (_, i) => ({
          title: `Story ${String(i).padStart(3, '0')}`,
          status: 'published',
          author: people[i % 5],
          editor: people[(i + 1) % 5],
          topics,
        }));
        await dataOf(await as(t, 'editor').post('/api/collections/stories/batch', { entries }), 201);
      },
    });

    /** The SQL statements on entry tables one request issues, and its answer. */
    const counted = async (path: string): Promise<{ statements: string[]; items: Array<Record<string, any>> }> => {
      const sequelize = t.kernel.container.resolve<Sequelize>('sequelize');
      const { value, statements } = await countStatements(sequelize, async () => (await dataOf(await as(t, 'editor').get(path))).items);
      // Entry tables only (cms_c_*): a background timer of the kernel may query its own tables meanwhile. SELECTs only:
      // Sequelize's first read of a model on SQLite also runs PRAGMA table_info once.
      return { statements: statements.filter((sql) => /\bcms_c_/.test(sql) && /^\s*SELECT/i.test(sql)), items: value };
    };

    it('answers a page of 20 with two one-relations and a many-relation of 5 populated in at most 4 statements, as many for 100', async function () {
      const small = await counted('/api/collections/stories?sort=title&limit=20&populate=author,editor,topics');
      expect(small.items).to.have.length(20);
      expect(small.items[0]!.author).to.include({ name: 'Person 0' });
      expect(small.items[0]!.editor).to.include({ name: 'Person 1' });
      expect(small.items[0]!.topics.map((x: { name: string }) => x.name)).to.deep.equal([
        'Topic 0',
        'Topic 1',
        'Topic 2',
        'Topic 3',
        'Topic 4',
      ]);
      expect(small.statements.length, small.statements.join('\n')).to.be.at.most(4);
      const large = await counted('/api/collections/stories?sort=title&limit=100&populate=author,editor,topics');
      expect(large.items).to.have.length(100);
      // The same list with another limit reuses the count (kept until the next write): the page and the targets alone.
      const counts = (statements: string[]) => statements.filter((x) => /SELECT COUNT\(\*\)/i.test(x)).length;
      expect(counts(small.statements), small.statements.join('\n')).to.equal(1);
      expect(counts(large.statements), large.statements.join('\n')).to.equal(0);
      expect(large.statements.length, large.statements.join('\n')).to.equal(small.statements.length - 1);
      // Without populate: the page and its count (a list of other collections: its count is its own).
      const plain = await counted('/api/collections/stories?sort=title&limit=20&fields=title');
      expect(plain.statements.length).to.equal(small.statements.length - 2);
    });
  });
}

import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import type { ModelMap } from '../../kernel/db/models.js';
import type { UsersService } from '../../plugins/auth/users-service.js';
import { as, dataOf, POSTS } from '../helpers/content.js';
import { fixturePlugin, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { MARIADB_URL } from '../helpers/services.js';

/**
 * Sequelize models per kernel: two kernels in one process, each on its own database, both booted
 * before anything is written. Users, collections, entries and media written through one kernel land
 * in its database only (with models initialised on the class, the last kernel booted owned them and
 * an entry written through the first landed in the second's database).
 */
const PAIRS: Array<{ name: string; second: 'sqlite' | 'mariadb'; available: boolean }> = [
  { name: 'two SQLite files', second: 'sqlite', available: true },
  { name: 'SQLite and MariaDB', second: 'mariadb', available: MARIADB_URL !== '' },
];

for (const pair of PAIRS) {
  describe(`two kernels in one process on two databases keep their data apart (${pair.name})`, function () {
    this.timeout(90000);
    const kernels: Record<'a' | 'b', TestKernel | undefined> = { a: undefined, b: undefined };
    const kernel = (name: 'a' | 'b') => kernels[name]!;
    const rows = async (name: 'a' | 'b', sql: string) =>
      (await kernel(name).kernel.container.resolve<Sequelize>('sequelize').query(sql, { type: 'SELECT' })) as Array<
        Record<string, unknown>
      >;
    const column = async (name: 'a' | 'b', sql: string, key: string) => (await rows(name, sql)).map((r) => String(r[key])).sort();

    before(async function () {
      if (!pair.available) {
        console.log('      CMS_TEST_MARIADB_URL is not set: the MariaDB variant is skipped');
        return this.skip();
      }
      kernels.a = await startTestKernel({ plugins: [fixturePlugin('test-identity')] });
      kernels.b = await startTestKernel({ db: pair.second, plugins: [fixturePlugin('test-identity')] });
    });
    after(async () => {
      await kernels.b?.close();
      await kernels.a?.close();
    });

    it('writes users through each kernel into its own database', async () => {
      for (const name of ['a', 'b'] as const)
        await kernel(name)
          .kernel.container.resolve<UsersService>('users')
          .create({ email: `user-${name}@example.com`, password: 'correct horse battery', role: 'editor' });
      expect(await column('a', 'SELECT email FROM auth_users', 'email')).to.deep.equal(['user-a@example.com']);
      expect(await column('b', 'SELECT email FROM auth_users', 'email')).to.deep.equal(['user-b@example.com']);
    });

    it('writes collections and entries through each kernel into its own database', async () => {
      await dataOf(await as(kernel('a'), 'admin').post('/api/collections', POSTS), 201);
      await dataOf(await as(kernel('b'), 'admin').post('/api/collections', { ...POSTS, name: 'articles' }), 201);
      await dataOf(await as(kernel('a'), 'editor').post('/api/collections/posts', { title: 'Only in A' }), 201);
      await dataOf(await as(kernel('b'), 'editor').post('/api/collections/articles', { title: 'Only in B' }), 201);
      expect(await column('a', 'SELECT name FROM content_collections', 'name')).to.deep.equal(['posts']);
      expect(await column('b', 'SELECT name FROM content_collections', 'name')).to.deep.equal(['articles']);
      expect(await column('a', 'SELECT collection FROM content_revisions', 'collection')).to.deep.equal(['posts']);
      expect(await column('b', 'SELECT collection FROM content_revisions', 'collection')).to.deep.equal(['articles']);
      const listA = await dataOf(await as(kernel('a'), 'editor').get('/api/collections/posts'));
      const listB = await dataOf(await as(kernel('b'), 'editor').get('/api/collections/articles'));
      expect(listA.items.map((e: { title: string }) => e.title)).to.deep.equal(['Only in A']);
      expect(listB.items.map((e: { title: string }) => e.title)).to.deep.equal(['Only in B']);
    });

    it('writes media through each kernel into its own database', async () => {
      const png = await imageBytes(8, 8);
      await dataOf(await uploadFile(kernel('a'), png, 'a.png'), 201);
      await dataOf(await uploadFile(kernel('b'), png, 'b.png'), 201);
      expect(await column('a', 'SELECT original_name FROM media_items', 'original_name')).to.deep.equal(['a.png']);
      expect(await column('b', 'SELECT original_name FROM media_items', 'original_name')).to.deep.equal(['b.png']);
    });

    it('each kernel hands out its own bound model classes', () => {
      const modelsA = kernel('a').kernel.container.resolve<ModelMap>('models');
      const modelsB = kernel('b').kernel.container.resolve<ModelMap>('models');
      expect(modelsA.User).to.not.equal(modelsB.User);
      expect(modelsA.User!.sequelize).to.equal(kernel('a').kernel.container.resolve('sequelize'));
      expect(modelsB.User!.sequelize).to.equal(kernel('b').kernel.container.resolve('sequelize'));
    });
  });
}

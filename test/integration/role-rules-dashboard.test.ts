import { expect } from 'chai';
import { authorClient, type Caller } from '../helpers/author-role.js';
import { useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 38: the dashboard's counts and newest entries keep to the caller's read rules (API decisions, "Roles
 * and rules"): an author (AUTHOR_RULES) counts and sees the published posts and her own drafts only; a role
 * whose only content grant is a read rule (no content:read) sees what the rule reads, and nothing of the
 * collections it may not read, without an error.
 */
const CONFIG = { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' as const } } } };

for (const variant of DB_VARIANTS) {
  describe(`rules of roles on the dashboard (${variant.name})`, function () {
    this.timeout(90000);
    const t = useTestKernel({ db: variant.name, config: CONFIG }, { variant });
    const { call, data, post, setUp, signIn } = authorClient(t);
    let admin: Caller, ann: Caller, reader: Caller;

    before(async function () {
      let bob: Caller;
      ({ admin, ann, bob } = await setUp());
      await post(ann, admin, 'ann-draft', 'draft', 'n');
      await post(ann, admin, 'ann-published', 'published', 'n');
      await post(bob, admin, 'bob-draft', 'draft', 'n');
      await post(bob, admin, 'bob-published', 'published', 'n');
      await post(admin, admin, 'admin-draft', 'draft', 'n');
      await data(await call('POST', '/api/collections', admin, { name: 'notes', fields: [{ name: 'title', type: 'text' }] }), 201);
      await data(await call('POST', '/api/collections/notes', admin, { title: 'a note', status: 'published' }), 201);
      const rules = [{ action: 'read', collection: 'posts', where: { status: 'published' } }];
      await data(await call('POST', '/api/roles', admin, { name: 'posts-reader', permissions: ['dashboard:read'], rules }), 201);
      reader = await signIn('posts-reader');
    });

    const stats = async (who: Caller) => data(await call('GET', '/api/dashboard/stats', who));
    const analytics = async (who: Caller) => (await data(await call('GET', '/api/dashboard/tenant-analytics', who))).content;
    const newest = async (who: Caller) =>
      (await data(await call('GET', '/api/dashboard/last5-content?limit=50', who))).map((e: any) => `${e.collection}:${e.title}`).sort();

    it('an author counts and sees the posts her read rule reads: published ones and her own drafts', async function () {
      expect((await stats(admin)).contentCount).to.equal(6);
      expect((await stats(ann)).contentCount).to.equal(4);
      expect(await analytics(ann)).to.deep.include({ entries: 4, byCollection: { posts: 3, notes: 1 } });
      expect(await newest(ann)).to.deep.equal(['notes:a note', 'posts:ann-draft', 'posts:ann-published', 'posts:bob-published']);
    });

    it('a role reading through a rule only: the posts its rule reads, nothing of the other collection, no error', async function () {
      expect((await stats(reader)).contentCount).to.equal(2);
      expect(await analytics(reader)).to.deep.include({ collections: 1, entries: 2, byCollection: { posts: 2 } });
      expect(await newest(reader)).to.deep.equal(['posts:ann-published', 'posts:bob-published']);
    });
  });
}

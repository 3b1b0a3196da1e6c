import { expect } from 'chai';
import { authorClient, type Caller } from '../helpers/author-role.js';
import { modernClient, waitFor } from '../helpers/graphql-ws.js';
import { useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * Issue 38, rules of roles on GraphQL subscriptions over a real WebSocket: an author (AUTHOR_RULES: reads
 * every published post and its own drafts, without `internalNotes`) is told only of the posts its rule lets
 * it read, and never of the hidden field; another author with the same role gets its own drafts, not hers.
 */
const CONFIG = { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' as const } } } };
const FIELDS = '_id title internalNotes status';

for (const variant of DB_VARIANTS) {
  describe(`rules of roles on GraphQL subscriptions (${variant.name})`, function () {
    this.timeout(90000);
    const t = useTestKernel({ db: variant.name, config: CONFIG }, { variant });
    const { call, data, post, setUp } = authorClient(t);
    const disposers: Array<() => unknown> = [];
    let admin: Caller, ann: Caller, bob: Caller;
    const active = () => t.kernel.container.resolve<{ activeSubscriptions: number }>('graphql').activeSubscriptions;

    before(async function () {
      ({ admin, ann, bob } = await setUp());
    });
    afterEach(async () => {
      for (const dispose of disposers.splice(0)) await dispose();
      await waitFor('subscriptions to end', () => active() === 0);
    });

    const subscribe = (who: Caller, query: string) => {
      const ws = modernClient(t, { headers: { cookie: who.cookie } });
      disposers.push(() => ws.dispose());
      return ws.subscribe(query);
    };

    it('postAdded: only posts the rule reads (published, or her own drafts), the hidden field null', async function () {
      const annAdded = subscribe(ann, `subscription { postAdded { ${FIELDS} } }`);
      const bobAdded = subscribe(bob, `subscription { postAdded { ${FIELDS} } }`);
      const adminAdded = subscribe(admin, `subscription { postAdded { ${FIELDS} } }`);
      await waitFor('3 subscriptions', () => active() === 3);
      // Events she may not read come first: had they been sent, they would arrive before the ones she may.
      await post(admin, admin, 'admin-draft', 'draft', 'admin-secret');
      await post(bob, admin, 'bob-draft', 'draft', 'bob-secret');
      await post(ann, admin, 'ann-draft', 'draft', 'ann-secret');
      await post(admin, admin, 'admin-published', 'published', 'pub-secret');

      const annGot = [(await annAdded.next()).data.postAdded, (await annAdded.next()).data.postAdded];
      expect(annGot.map((e: any) => e.title)).to.deep.equal(['ann-draft', 'admin-published']);
      for (const e of annGot) expect(e.internalNotes).to.equal(null);
      const bobGot = [(await bobAdded.next()).data.postAdded, (await bobAdded.next()).data.postAdded];
      expect(bobGot.map((e: any) => e.title)).to.deep.equal(['bob-draft', 'admin-published']);
      // The admin is told of all four (created without notes: the admin writes them afterwards).
      const adminGot = [];
      for (let i = 0; i < 4; i++) adminGot.push((await adminAdded.next()).data.postAdded.title);
      expect(adminGot).to.deep.equal(['admin-draft', 'bob-draft', 'ann-draft', 'admin-published']);
      expect(annAdded.pending + bobAdded.pending).to.equal(0);
    });

    it('postUpdated: a change of the hidden field reaches her without it; changes of others’ drafts never', async function () {
      const bobDraft = await post(bob, admin, 'bob-draft-2', 'draft', 'x');
      const annDraft = await post(ann, admin, 'ann-draft-2', 'draft', 'x');
      const annUpdated = subscribe(ann, `subscription { postUpdated { ${FIELDS} } }`);
      const adminUpdated = subscribe(admin, `subscription { postUpdated { ${FIELDS} } }`);
      await waitFor('2 subscriptions', () => active() === 2);
      await data(await call('PATCH', `/api/collections/posts/${bobDraft}`, admin, { internalNotes: 'bob-updated-secret' }));
      await data(await call('PATCH', `/api/collections/posts/${annDraft}`, admin, { internalNotes: 'ann-updated-secret' }));
      const got = (await annUpdated.next()).data.postUpdated;
      expect(got).to.deep.equal({ _id: annDraft, title: 'ann-draft-2', internalNotes: null, status: 'draft' });
      expect((await adminUpdated.next()).data.postUpdated.internalNotes).to.equal('bob-updated-secret');
      expect((await adminUpdated.next()).data.postUpdated.internalNotes).to.equal('ann-updated-secret');
      expect(annUpdated.pending).to.equal(0);
    });

    it('postDeleted: the deletion of a post she could read, not of another author’s draft (checked on the deleted values)', async function () {
      const bobDraft = await post(bob, admin, 'bob-draft-3', 'draft', 'x');
      const annDraft = await post(ann, admin, 'ann-draft-3', 'draft', 'x');
      const annDeleted = subscribe(ann, `subscription { postDeleted { ${FIELDS} } }`);
      await waitFor('1 subscription', () => active() === 1);
      await data(await call('DELETE', `/api/collections/posts/${bobDraft}`, admin));
      await data(await call('DELETE', `/api/collections/posts/${annDraft}`, admin));
      const got = (await annDeleted.next()).data.postDeleted;
      expect(got).to.deep.equal({ _id: annDraft, title: 'ann-draft-3', internalNotes: null, status: 'draft' });
      expect(annDeleted.pending).to.equal(0);
    });
  });
}

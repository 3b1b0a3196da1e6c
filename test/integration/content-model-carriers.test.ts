import { expect } from 'chai';
import { AppError } from '../../kernel/errors.js';
import type { Identity } from '../../kernel/http/identity.js';
import { createLocalClient, systemIdentity } from '../../plugins/content/local-client.js';
import { rejectionOf } from '../helpers/assertions.js';
import { as, CTA_COMPONENT, dataOf } from '../helpers/content.js';
import { modernClient, testHeaders, waitFor } from '../helpers/graphql-ws.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35, "everything that moves content carries it": the in-process SDK (components, populate, blocks and
// many-relations with the REST validation), GraphQL subscriptions (a blocks union and a many-relation in the
// event) and revisions (each write's blocks and many-relation values, in order) carry the new content model.
type Entry = Record<string, any>;
const viewer: Identity = { kind: 'user', userId: null, role: 'viewer', permissions: ['content:read'], tenantId: 'default' };

for (const variant of DB_VARIANTS) {
  describe(`content model v2 through the SDK, subscriptions and revisions (${variant.name})`, function () {
    this.timeout(60000);
    const tags: Record<string, string> = {};
    const t = useIdentityKernel(variant, {
      seed: async () => {
        const admin = as(t, 'admin');
        await dataOf(await admin.post('/api/components', CTA_COMPONENT), 201);
        await dataOf(await admin.post('/api/collections', { name: 'ctags', fields: [{ name: 'name', type: 'text' }] }), 201);
        await dataOf(
          await admin.post('/api/collections', {
            name: 'cpages',
            singular: 'cpage',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'body', type: 'blocks', components: ['cta'] },
              { name: 'tags', type: 'relation', collection: 'ctags', cardinality: 'many' },
            ],
          }),
          201,
        );
        for (const name of ['red', 'green', 'blue'])
          tags[name] = (await dataOf(await admin.post('/api/collections/ctags', { name, status: 'published' }), 201))._id;
      },
    });

    it('the SDK manages components and reads blocks and many-relations with populate, validating as REST does', async function () {
      const cms = createLocalClient(t.kernel, systemIdentity());
      const note = await cms.components.create({ name: 'note', fields: [{ name: 'text', type: 'text', required: true }] });
      expect(note).to.deep.include({ name: 'note' });
      expect((await cms.components.list()).map((c) => c.name)).to.include.members(['cta', 'note']);
      expect((await cms.components.update('note', { label: 'Side note' })).label).to.equal('Side note');
      const denied = await rejectionOf(createLocalClient(t.kernel, viewer).components.create({ name: 'nope', fields: [] }));
      expect((denied as AppError).code).to.equal('FORBIDDEN');
      // A change that would lose stored values needs the plan's hash, as PATCH does.
      await dataOf(
        await as(t, 'admin').post('/api/collections', { name: 'cnotes', fields: [{ name: 'n', type: 'component', component: 'note' }] }),
        201,
      );
      await cms.entries('cnotes').create({ n: { text: 'kept?' } });
      const lossy = { fields: [{ name: 'other', type: 'text' as const }] };
      expect(((await rejectionOf(cms.components.update('note', lossy))) as AppError).code).to.equal('SCHEMA_CHANGE_LOSES_DATA');
      const plan = await cms.components.planChange('note', lossy);
      await cms.components.update('note', { ...lossy, planHash: plan.planHash });
      expect((await cms.entries('cnotes').list()).items.map((e) => e.n)).to.deep.equal([{}]);
      await cms.collections.remove('cnotes');
      await cms.components.remove('note');
      expect(((await rejectionOf(cms.components.get('note'))) as AppError).status).to.equal(404);

      const pages = cms.entries('cpages');
      const made = await pages.create({
        title: 'Home',
        body: [
          { __component: 'cta', label: 'Start', url: 'https://example.org/start' },
          { __component: 'cta', label: 'Later' },
        ],
        tags: [tags.blue, tags.red],
      });
      const read = await pages.get(made._id, { populate: 'tags' });
      expect(read.body).to.deep.equal(made.body);
      expect((read.tags as Entry[]).map((e) => e.name)).to.deep.equal(['blue', 'red']);
      const listed = await pages.list({ populate: 'tags', filter: { tags: { has: tags.red } } });
      expect(listed.items.map((e) => (e.tags as Entry[]).map((x) => x.name))).to.deep.equal([['blue', 'red']]);
      const invalid = await rejectionOf(pages.create({ title: 'Bad', body: [{ __component: 'cta', url: 'https://example.org' }] }));
      expect((invalid as AppError).code).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify((invalid as AppError).extra)).to.contain('body.0.label');
    });

    it('a GraphQL subscription delivers the blocks (as the union) and the many-relation of a new entry', async function () {
      const ws = modernClient(t, { headers: testHeaders('editor') });
      try {
        const inbox = ws.subscribe('subscription { cpageAdded { _id title tags body { __typename ... on CtaComponent { label url } } } }');
        const graphql = t.kernel.container.resolve<{ activeSubscriptions: number }>('graphql');
        await waitFor('the subscription', () => graphql.activeSubscriptions === 1);
        const created = await dataOf(
          await as(t, 'editor').post('/api/collections/cpages', {
            title: 'Live',
            body: [{ __component: 'cta', label: 'Watch', url: 'https://example.org/watch' }],
            tags: [tags.green, tags.blue],
          }),
          201,
        );
        expect(await inbox.next()).to.deep.equal({
          data: {
            cpageAdded: {
              _id: created._id,
              title: 'Live',
              tags: [tags.green, tags.blue],
              body: [{ __typename: 'CtaComponent', label: 'Watch', url: 'https://example.org/watch' }],
            },
          },
        });
      } finally {
        await ws.dispose();
      }
    });

    it('revisions hold each write of the blocks and the many-relation, in order', async function () {
      const editor = as(t, 'editor');
      const first = [
        { __component: 'cta', label: 'One' },
        { __component: 'cta', label: 'Two', url: 'https://example.org/two' },
      ];
      const made = await dataOf(await editor.post('/api/collections/cpages', { title: 'Versions', body: first, tags: [tags.red] }), 201);
      await dataOf(await editor.patch(`/api/collections/cpages/${made._id}`, { body: [first[1], first[0]], tags: [tags.blue, tags.red] }));
      const revisions = (await dataOf(await editor.get(`/api/collections/cpages/${made._id}/revisions`))) as Entry[];
      const states = revisions.map((r) => r.data);
      expect(states.map((s: Entry) => [s.body.map((b: Entry) => b.label), s.tags])).to.deep.equal([
        [
          ['Two', 'One'],
          [tags.blue, tags.red],
        ],
        [['One', 'Two'], [tags.red]],
      ]);
    });
  });
}

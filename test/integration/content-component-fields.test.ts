import { expect } from 'chai';
import { as, dataOf, failureOf, validationIssues, graphqlData } from '../helpers/content.js';
import { fixturePlugin, useIdentityKernel, useTwoInstances } from '../helpers/kernel.js';
import { until } from '../helpers/until.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35, item 2 (API decisions, "Content model v2"): `component` fields (an object of a component's fields,
// an array of them when repeatable) and `blocks` fields (an ordered array of {__component, ...fields}).
const COMPONENTS = [
  {
    name: 'cta',
    fields: [
      { name: 'url', type: 'url', required: true },
      { name: 'label', type: 'text', default: 'More' },
    ],
  },
  { name: 'hero', fields: [{ name: 'heading', type: 'text', required: true, max: 40 }] },
  {
    name: 'section',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'cta', type: 'component', component: 'cta' },
    ],
  },
  {
    name: 'seo',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'description', type: 'text' },
      { name: 'noindex', type: 'boolean' },
    ],
  },
];
const PAGES = {
  name: 'pages',
  fields: [
    { name: 'title', type: 'text' },
    { name: 'seo', type: 'component', component: 'seo' },
    { name: 'sections', type: 'component', component: 'section', repeatable: true, min: 1, max: 3 },
    { name: 'body', type: 'blocks', components: ['hero', 'section'], max: 60 },
  ],
};
const PAGE = {
  title: 'Home',
  seo: { title: 'Home page', description: 'Welcome', noindex: false },
  sections: [{ title: 'One', cta: { url: 'https://example.org/one', label: 'Go' } }, { title: 'Two' }],
  body: [
    { __component: 'hero', heading: 'Hello' },
    { __component: 'section', title: 'Inside', cta: { url: 'https://example.org/in', label: 'In' } },
  ],
};

/** A 400 VALIDATION_ERROR's issues. */
const refused = validationIssues;
const pathsOf = async (res: Response) => (await refused(res)).map((i) => i.path);

const gql = graphqlData;

for (const variant of DB_VARIANTS) {
  describe(`content: component and blocks fields (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        for (const c of COMPONENTS) await dataOf(await as(t, 'admin').post('/api/components', c), 201);
        await dataOf(await as(t, 'admin').post('/api/collections', PAGES), 201);
      },
    });
    const editor = () => as(t, 'editor');
    const create = async (body: unknown) => dataOf(await editor().post('/api/collections/pages', body), 201);

    it('answers the fields as defined (no resolved components in the schema)', async function () {
      const pages = await dataOf(await as(t, 'viewer').get('/api/collections/pages/schema'));
      expect(pages.fields).to.deep.equal(PAGES.fields);
      const listed = (await dataOf(await as(t, 'viewer').get('/api/collections'))).find((c: { name: string }) => c.name === 'pages');
      expect(listed.fields).to.deep.equal(PAGES.fields);
    });

    it('writes component, repeatable component and blocks values and reads them back exactly', async function () {
      const made = await create(PAGE);
      for (const k of ['title', 'seo', 'body'] as const) expect(made[k]).to.deep.equal(PAGE[k]);
      // The default inside a component applies when the component object is written without that key.
      const sections = [PAGE.sections[0], { title: 'Two' }];
      expect(made.sections).to.deep.equal(sections);
      const read = await dataOf(await editor().get(`/api/collections/pages/${made._id}`));
      expect({ seo: read.seo, sections: read.sections, body: read.body }).to.deep.equal({ seo: PAGE.seo, sections, body: PAGE.body });
      const withCta = await create({ sections: [{ cta: { url: 'https://example.org/x' } }] });
      expect(withCta.sections).to.deep.equal([{ cta: { url: 'https://example.org/x', label: 'More' } }]);
      const updated = await dataOf(await editor().patch(`/api/collections/pages/${made._id}`, { seo: { title: 'New' } }));
      expect(updated.seo).to.deep.equal({ title: 'New' });
    });

    it('names the full path of a bad value inside components', async function () {
      const sections = [{ title: 'a' }, { title: 'b' }, { title: 'c', cta: { url: 'javascript:alert(1)' } }];
      const issues = await refused(await editor().post('/api/collections/pages', { sections }));
      expect(issues.map((i) => i.path)).to.include('body.sections.2.cta.url');
      const inBlocks = await pathsOf(
        await editor().post('/api/collections/pages', {
          body: [
            { __component: 'hero', heading: 'x'.repeat(41) },
            { __component: 'section', cta: { label: 'no url' } },
          ],
        }),
      );
      expect(inBlocks).to.include.members(['body.body.0.heading', 'body.body.1.cta.url']);
    });

    it('checks required fields, unknown keys, unknown __component and min/max of repeatable components and blocks', async function () {
      expect(await pathsOf(await editor().post('/api/collections/pages', { seo: { description: 'no title' } }))).to.deep.equal([
        'body.seo.title',
      ]);
      expect(await pathsOf(await editor().post('/api/collections/pages', { seo: { title: 'x', other: 1 } }))).to.deep.equal([
        'body.seo.other',
      ]);
      expect(await pathsOf(await editor().post('/api/collections/pages', { body: [{ __component: 'seo', title: 'x' }] }))).to.deep.equal([
        'body.body.0.__component',
      ]);
      expect(await pathsOf(await editor().post('/api/collections/pages', { body: [{ heading: 'x' }] }))).to.deep.equal([
        'body.body.0.__component',
      ]);
      expect(await pathsOf(await editor().post('/api/collections/pages', { sections: [] }))).to.deep.equal(['body.sections']);
      const four = [{ title: '1' }, { title: '2' }, { title: '3' }, { title: '4' }];
      expect(await pathsOf(await editor().post('/api/collections/pages', { sections: four }))).to.deep.equal(['body.sections']);
      expect(await pathsOf(await editor().post('/api/collections/pages', { sections: { title: 'not a list' } }))).to.deep.equal([
        'body.sections',
      ]);
      const tooMany = Array.from({ length: 61 }, (_, i) => ({ __component: 'hero', heading: `h${i}` }));
      expect(await pathsOf(await editor().post('/api/collections/pages', { body: tooMany }))).to.deep.equal(['body.body']);
    });

    it('round-trips a blocks value of 50 blocks in order', async function () {
      const body = Array.from({ length: 50 }, (_, i) =>
        i % 2
          ? { __component: 'hero', heading: `Heading ${i}` }
          : { __component: 'section', title: `S${i}`, cta: { url: `https://example.org/${i}`, label: 'L' } },
      );
      const made = await create({ title: 'fifty', body });
      expect(made.body).to.deep.equal(body);
      expect((await dataOf(await editor().get(`/api/collections/pages/${made._id}`))).body).to.deep.equal(body);
    });

    it('filters by a field of a non-repeatable component by dotted path', async function () {
      await create({ title: 'f1', seo: { title: 'Alpha search', noindex: true } });
      await create({ title: 'f2', seo: { title: 'Beta' } });
      const titles = async (filter: unknown) => {
        const res = await editor().get(`/api/collections/pages?filter=${encodeURIComponent(JSON.stringify(filter))}&limit=100`);
        return ((await dataOf(res)).items as Array<{ title: string }>).map((e) => e.title).sort();
      };
      expect(await titles({ 'seo.title': { eq: 'Beta' } })).to.deep.equal(['f2']);
      expect(await titles({ 'seo.title': 'Alpha search' })).to.deep.equal(['f1']);
      expect(await titles({ 'seo.title': { contains: 'pha sea' }, title: { startsWith: 'f' } })).to.deep.equal(['f1']);
      expect(await titles({ 'seo.title': { startsWith: 'bet' } })).to.deep.equal(['f2']);
      expect(await titles({ 'seo.title': { in: ['Beta', 'Alpha search'] } })).to.deep.equal(['f1', 'f2']);
      expect(await titles({ 'seo.title': { ne: 'Beta' }, title: { startsWith: 'f' } })).to.deep.equal(['f1']);
      expect(await titles({ 'seo.noindex': true })).to.deep.equal(['f1']);
      expect(await titles({ 'seo.description': { null: true }, title: { in: ['f1', 'f2'] } })).to.deep.equal(['f1', 'f2']);
      for (const path of ['sections.title', 'body.heading', 'seo.nothing', 'seo']) {
        const res = await editor().get(`/api/collections/pages?filter=${encodeURIComponent(JSON.stringify({ [path]: 'x' }))}`);
        const issues = await refused(res);
        expect(issues[0]!.message).to.include(path.split('.')[0]);
      }
    });

    it('nests components three levels deep and refuses a fourth level, a cycle and unknown components', async function () {
      const admin = as(t, 'admin');
      await dataOf(await admin.post('/api/components', { name: 'l1', fields: [{ name: 'link', type: 'url' }] }), 201);
      await dataOf(
        await admin.post('/api/components', { name: 'l2', fields: [{ name: 'inner', type: 'component', component: 'l1' }] }),
        201,
      );
      await dataOf(
        await admin.post('/api/components', { name: 'l3', fields: [{ name: 'items', type: 'blocks', components: ['l2'] }] }),
        201,
      );
      const deep = await refused(
        await admin.post('/api/components', { name: 'l4', fields: [{ name: 'x', type: 'component', component: 'l3' }] }),
      );
      expect(deep.map((i) => i.path)).to.deep.equal(['body.fields.0.component']);
      expect(deep[0]!.message).to.include('l4 > l3 > l2 > l1');
      const cycle = await refused(
        await admin.patch('/api/components/l1', { fields: [{ name: 'back', type: 'component', component: 'l3' }] }),
      );
      expect(cycle.map((i) => i.path)).to.deep.equal(['body.fields.0.component']);
      const unknown = await refused(
        await admin.post('/api/collections', { name: 'broken', fields: [{ name: 'x', type: 'blocks', components: ['hero', 'nope'] }] }),
      );
      expect(unknown.map((i) => i.path)).to.deep.equal(['body.fields.0.components']);
      await refused(await admin.post('/api/components', { name: 'bad', fields: [{ name: 'x', type: 'component', component: 'nope' }] }));
      await refused(await admin.post('/api/collections', { name: 'broken', fields: [{ name: 'x', type: 'component' }] }));
      await dataOf(
        await admin.post('/api/collections', { name: 'deep', fields: [{ name: 'top', type: 'component', component: 'l3' }] }),
        201,
      );
      // A component field keeps its component and repeatable (the stored JSON depends on them).
      for (const top of [
        { name: 'top', type: 'component', component: 'l2' },
        { name: 'top', type: 'component', component: 'l3', repeatable: true },
      ])
        expect(await pathsOf(await admin.patch('/api/collections/deep/schema', { fields: [top] }))).to.deep.equal([
          'body.fields.0.component',
        ]);
      const value = { items: [{ __component: 'l2', inner: { link: 'https://example.org/deep' } }] };
      const made = await dataOf(await editor().post('/api/collections/deep', { top: value }), 201);
      expect((await dataOf(await editor().get(`/api/collections/deep/${made._id}`))).top).to.deep.equal(value);
      const bad = { items: [{ __component: 'l2', inner: { link: 'ftp://x' } }] };
      expect(await pathsOf(await editor().post('/api/collections/deep', { top: bad }))).to.include('body.top.items.0.inner.link');
    });

    it('a component PATCH changes the validation of the collections using it; DELETE answers 409 while it is used', async function () {
      const admin = as(t, 'admin');
      await create({ seo: { title: 'A long title' } });
      const fields = [
        { name: 'title', type: 'text', required: true, max: 5 },
        { name: 'description', type: 'text' },
        { name: 'noindex', type: 'boolean' },
        { name: 'keywords', type: 'select', options: ['a', 'b'], multiple: true },
      ];
      await dataOf(await admin.patch('/api/components/seo', { fields }));
      expect(await pathsOf(await editor().post('/api/collections/pages', { seo: { title: 'A long title' } }))).to.deep.equal([
        'body.seo.title',
      ]);
      expect((await create({ seo: { title: 'Short', keywords: ['b'] } })).seo).to.deep.equal({ title: 'Short', keywords: ['b'] });
      // The GraphQL schema follows: the new field of the component can be asked for.
      const listed = await gql(t, '{ pages(limit: 100) { items { seo { keywords } } } }');
      expect(listed.pages.items.map((p: { seo: { keywords?: string[] } | null }) => p.seo?.keywords)).to.deep.include(['b']);
      // Dropping keywords loses the value stored above: it needs the plan's hash (content-component-schema-changes.test.ts).
      const back = { fields: COMPONENTS[3]!.fields };
      const { planHash } = await dataOf(await admin.post('/api/components/seo/schema/plan', back));
      await dataOf(await admin.patch('/api/components/seo', { ...back, planHash }));
      await create({ seo: { title: 'A long title' } });
      for (const [name, user] of [
        ['seo', "collection 'pages'"],
        ['cta', "component 'section'"],
      ] as const) {
        const conflict = await failureOf(await admin.delete(`/api/components/${name}`), 409);
        expect(conflict.error).to.equal('CONFLICT');
        expect(conflict.message).to.include(user);
      }
    });

    it('GraphQL answers component values as objects, repeatable ones as lists and blocks as a union', async function () {
      const made = await create(PAGE);
      const data = await gql(
        t,
        `{ page(_id: "${made._id}") { title seo { title description noindex } sections { title cta { url label } }
           body { __typename ... on HeroComponent { heading } ... on SectionComponent { title cta { url } } } } }`,
      );
      expect(data.page).to.deep.equal({
        title: 'Home',
        seo: PAGE.seo,
        sections: [
          { title: 'One', cta: { url: 'https://example.org/one', label: 'Go' } },
          { title: 'Two', cta: null },
        ],
        body: [
          { __typename: 'HeroComponent', heading: 'Hello' },
          { __typename: 'SectionComponent', title: 'Inside', cta: { url: 'https://example.org/in' } },
        ],
      });
      const res = await t.request('/api/graphql', {
        method: 'POST',
        identity: 'editor',
        json: {
          query: 'mutation($i: PageInput!) { createPage(input: $i) { seo { title } } }',
          variables: { i: { seo: { description: 'x' } } },
        },
      });
      const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
      expect(body.errors?.[0]?.extensions?.code).to.equal('VALIDATION_ERROR');
    });

    it('GET /api/types.ts has an interface per component and blocks as a union on __component', async function () {
      const res = await t.request('/api/types.ts', { identity: 'viewer' });
      const text = await res.text();
      expect(res.status).to.equal(200);
      expect(text).to.include('export interface SeoComponent {');
      expect(text).to.include('export interface SectionComponent {');
      expect(text).to.include('  cta: CtaComponent | null;');
      expect(text).to.include('  sections: SectionComponent[] | null;');
      expect(text).to.include('  body: Array<({ __component: "hero" } & HeroComponent) | ({ __component: "section" } & SectionComponent)>');
    });
  });
}

describe('content: component fields across instances and kernels', function () {
  this.timeout(60000);

  describe('two instances of one installation (MariaDB and Redis)', function () {
    const [a, b] = useTwoInstances({ plugins: [fixturePlugin('test-identity')] }, 'compfields');

    it('a component PATCH on one instance changes the validation on the other', async function () {
      await dataOf(await as(a, 'admin').post('/api/components', COMPONENTS[3]), 201);
      await dataOf(
        await as(a, 'admin').post('/api/collections', { name: 'docs', fields: [{ name: 'seo', type: 'component', component: 'seo' }] }),
        201,
      );
      const status = async () => (await as(b, 'editor').post('/api/collections/docs', { seo: { title: 'Long enough' } })).status;
      await until(async () => ((await status()) === 201 ? true : undefined), 'B knowing the collection');
      const fields = [{ name: 'title', type: 'text', required: true, max: 5 }];
      await dataOf(await as(a, 'admin').patch('/api/components/seo', { fields }));
      await until(async () => ((await status()) === 400 ? true : undefined), 'B refusing the long title');
      expect(await pathsOf(await as(b, 'editor').post('/api/collections/docs', { seo: { title: 'Long enough' } }))).to.deep.equal([
        'body.seo.title',
      ]);
    });
  });

  describe('two kernels in one process on different databases', function () {
    const one = useIdentityKernel(DB_VARIANTS[0]!);
    const two = useIdentityKernel(DB_VARIANTS[0]!);

    it('keep their components apart', async function () {
      for (const [t, max] of [
        [one, 5],
        [two, 50],
      ] as const) {
        await dataOf(await as(t, 'admin').post('/api/components', { name: 'seo', fields: [{ name: 'title', type: 'text', max }] }), 201);
        await dataOf(
          await as(t, 'admin').post('/api/collections', { name: 'docs', fields: [{ name: 'seo', type: 'component', component: 'seo' }] }),
          201,
        );
      }
      expect(await pathsOf(await as(one, 'editor').post('/api/collections/docs', { seo: { title: 'Long enough' } }))).to.deep.equal([
        'body.seo.title',
      ]);
      await dataOf(await as(two, 'editor').post('/api/collections/docs', { seo: { title: 'Long enough' } }), 201);
    });
  });
});

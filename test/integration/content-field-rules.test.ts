import { expect } from 'chai';
import { as, dataOf, validationIssues, graphqlData } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 35, item 4: the field types email, url, color, select with `multiple`, and the rules min/max/pattern.
const CONTACTS = {
  name: 'contacts',
  fields: [
    { name: 'name', type: 'text', min: 2, max: 5, pattern: '^[A-Z][a-z]*$' },
    { name: 'mail', type: 'email', max: 20 },
    { name: 'site', type: 'url', min: 12 },
    { name: 'tint', type: 'color', default: '#112233' },
    { name: 'tags', type: 'select', options: ['red', 'green', 'blue'], multiple: true, min: 1, max: 2 },
    { name: 'score', type: 'number', min: -1.5, max: 10 },
    { name: 'kind', type: 'select', options: ['a', 'b'] },
  ],
};

/** A 400 VALIDATION_ERROR's issue paths. */
async function refusedPaths(res: Response): Promise<string[]> {
  return (await validationIssues(res)).map((i) => i.path);
}

const gql = graphqlData;

const GOOD = {
  name: 'Ada',
  mail: 'ada@example.org',
  site: 'https://example.org/a?b=c',
  tint: '#A0b1C2',
  tags: ['blue', 'red'],
  score: 10,
  kind: 'b',
};

for (const variant of DB_VARIANTS) {
  describe(`content: email, url, color, multiple select and field rules (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        await dataOf(await as(t, 'admin').post('/api/collections', CONTACTS), 201);
      },
    });
    const editor = () => as(t, 'editor');

    it('keeps the new types and rules in the schema', async function () {
      const schema = await dataOf(await editor().get('/api/collections/contacts/schema'));
      expect(schema.fields).to.deep.equal(CONTACTS.fields);
    });

    it('round-trips accepted values exactly, on create, read, list and update', async function () {
      const created = await dataOf(await editor().post('/api/collections/contacts', GOOD), 201);
      expect(created).to.include({ name: 'Ada', mail: 'ada@example.org', site: GOOD.site, tint: '#A0b1C2', score: 10, kind: 'b' });
      expect(created.tags).to.deep.equal(['blue', 'red']);
      const read = await dataOf(await editor().get(`/api/collections/contacts/${created._id}`));
      for (const [k, v] of Object.entries(GOOD)) expect(read[k], k).to.deep.equal(v);
      const list = await dataOf(await editor().get('/api/collections/contacts?limit=100'));
      const item = list.items.find((i: { _id: string }) => i._id === created._id);
      for (const [k, v] of Object.entries(GOOD)) expect(item[k], k).to.deep.equal(v);
      const updated = await dataOf(
        await editor().patch(`/api/collections/contacts/${created._id}`, { tags: ['green'], tint: '#ffffff', score: -1.5, name: 'Bo' }),
      );
      expect(updated).to.include({ tint: '#ffffff', score: -1.5, name: 'Bo' });
      expect(updated.tags).to.deep.equal(['green']);
      const cleared = await dataOf(await editor().patch(`/api/collections/contacts/${created._id}`, { tags: null, mail: null }));
      expect(cleared).to.include({ tags: null, mail: null });
    });

    it('gives a new entry the default colour', async function () {
      const created = await dataOf(await editor().post('/api/collections/contacts', { name: 'Cy' }), 201);
      expect(created.tint).to.equal('#112233');
    });

    it('bounds are inclusive: a number between min and max, text between min and max characters', async function () {
      for (const body of [{ score: -1.5 }, { score: 10 }, { name: 'Ab' }, { name: 'Abcde' }, { tags: ['red'] }, { tags: ['red', 'blue'] }])
        await dataOf(await editor().post('/api/collections/contacts', body), 201);
      expect(await refusedPaths(await editor().post('/api/collections/contacts', { score: -1.6 }))).to.deep.equal(['body.score']);
      expect(await refusedPaths(await editor().post('/api/collections/contacts', { score: 10.01 }))).to.deep.equal(['body.score']);
      expect(await refusedPaths(await editor().post('/api/collections/contacts', { name: 'A' }))).to.deep.equal(['body.name']);
      expect(await refusedPaths(await editor().post('/api/collections/contacts', { name: 'Abcdef' }))).to.deep.equal(['body.name']);
      expect(await refusedPaths(await editor().post('/api/collections/contacts', { tags: [] }))).to.deep.equal(['body.tags']);
      const three = { tags: ['red', 'green', 'blue'] };
      expect(await refusedPaths(await editor().post('/api/collections/contacts', three))).to.deep.equal(['body.tags']);
    });

    it('refuses each bad value with 400 VALIDATION_ERROR naming the field', async function () {
      const bad: Array<[string, unknown]> = [
        ['name', 'ada'], // pattern: a capital first
        ['name', 'Ad4'],
        ['mail', 'not-an-email'],
        ['mail', 'averyveryverylong@example.org'], // 29 > max 20
        ['mail', 42],
        ['site', 'example.org/path'],
        ['site', 'javascript:alert(1)'],
        ['site', 'https://a.b'], // 11 < min 12
        ['tint', '#fff'],
        ['tint', 'red'],
        ['tint', '#12345g'],
        ['tint', '#1122334'],
        ['tags', 'red'], // a bare string
        ['tags', ['red', 'red']],
        ['tags', ['purple']],
        ['tags', [1]],
        ['kind', ['a']], // a single select takes one option
      ];
      for (const [field, value] of bad) {
        const res = await editor().post('/api/collections/contacts', { [field]: value });
        // The field, or one item of it (`body.tags.0`).
        const paths = await refusedPaths(res);
        expect(
          paths.some((p) => p === `body.${field}` || p.startsWith(`body.${field}.`)),
          `${field}: ${JSON.stringify(value)}: ${paths}`,
        ).to.equal(true);
      }
      // One message per problem: a URL that is not one is named once, in words.
      const notUrl = await validationIssues(await editor().post('/api/collections/contacts', { site: 'not a web address' }));
      expect(notUrl).to.deep.equal([{ path: 'body.site', message: 'an http:// or https:// URL' }]);
      const created = await dataOf(await editor().post('/api/collections/contacts', { name: 'Di' }), 201);
      const patched = await editor().patch(`/api/collections/contacts/${created._id}`, { tags: 'green' });
      expect(await refusedPaths(patched)).to.deep.equal(['body.tags']);
      // A value of the wrong kind is one issue (its type), not also a failed rule.
      expect(await refusedPaths(await editor().post('/api/collections/contacts', { name: 42, score: '3' }))).to.deep.equal([
        'body.name',
        'body.score',
      ]);
    });

    it('sorts and filters email, url and color like text; a multiple select is neither sortable nor filterable yet', async function () {
      for (const mail of ['zed@example.org', 'amy@example.org'])
        await dataOf(
          await editor().post('/api/collections/contacts', { mail, tint: '#00ff00', site: `https://${mail.split('@')[0]}.example.org` }),
          201,
        );
      const sorted = await dataOf(
        await editor().get('/api/collections/contacts?sort=mail&filter=' + encodeURIComponent('{"tint":"#00ff00"}')),
      );
      expect(sorted.items.map((i: { mail: string }) => i.mail)).to.deep.equal(['amy@example.org', 'zed@example.org']);
      const contains = encodeURIComponent(JSON.stringify({ site: { contains: 'zed.' } }));
      const found = await dataOf(await editor().get(`/api/collections/contacts?filter=${contains}`));
      expect(found.items.map((i: { mail: string }) => i.mail)).to.deep.equal(['zed@example.org']);
      const searched = await dataOf(await editor().get('/api/collections/contacts?search=amy@'));
      expect(searched.items.map((i: { mail: string }) => i.mail)).to.deep.equal(['amy@example.org']);
      const badEq = await editor().get('/api/collections/contacts?filter=' + encodeURIComponent('{"tags":{"eq":"red"}}'));
      const body = await badEq.json();
      expect(badEq.status).to.equal(400);
      expect(body.error).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify(body.issues)).to.contain("'tags'");
      expect(await refusedPaths(await editor().get('/api/collections/contacts?sort=tags'))).to.deep.equal(['query.sort']);
      expect(
        await refusedPaths(await editor().get('/api/collections/contacts?filter=' + encodeURIComponent('{"mail":"nope"}'))),
      ).to.deep.equal(['query.filter']);
    });

    it('answers the new types over GraphQL: strings, and a multiple select as a list of its enum', async function () {
      const created = await dataOf(await editor().post('/api/collections/contacts', GOOD), 201);
      const data = await gql(
        t,
        `{ contact(_id: "${created._id}") { name mail site tint tags score kind }
           tags: __type(name: "Contact") { fields { name type { kind ofType { kind ofType { name } } } } } }`,
      );
      expect(data.contact).to.deep.equal({ ...GOOD, tags: ['blue', 'red'] });
      const tags = data.tags.fields.find((f: { name: string }) => f.name === 'tags');
      expect(tags.type).to.deep.equal({ kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'ContactTags' } } });
      const mutation = `mutation { createContact(input: {tags: [green], tint: "#010203", mail: "x@y.org"}) { tags tint mail } }`;
      expect((await gql(t, mutation)).createContact).to.deep.equal({ tags: ['green'], tint: '#010203', mail: 'x@y.org' });
    });
  });

  describe(`content: field rules in schema definitions (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant);
    const admin = () => as(t, 'admin');
    const define = (fields: unknown[]) => admin().post('/api/collections', { name: 'rules', fields });

    it('refuses rules that do not fit the type or each other, naming the field and the rule', async function () {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: 'a', type: 'number', min: 5, max: 4 }, 'min'],
        [{ name: 'a', type: 'text', min: 9, max: 3 }, 'min'],
        [{ name: 'a', type: 'number', pattern: '^a$' }, 'pattern'],
        [{ name: 'a', type: 'email', pattern: '^a' }, 'pattern'],
        [{ name: 'a', type: 'text', multiple: true }, 'multiple'],
        [{ name: 'a', type: 'text', pattern: '([a-z' }, 'pattern'],
        [{ name: 'a', type: 'text', pattern: '(a+)+$' }, 'pattern'],
        [{ name: 'a', type: 'text', pattern: '(?:\\w*x)*y' }, 'pattern'],
        [{ name: 'a', type: 'text', pattern: 'a'.repeat(501) }, 'pattern'],
        [{ name: 'a', type: 'boolean', min: 1 }, 'min'],
        [{ name: 'a', type: 'color', max: 7 }, 'max'],
        [{ name: 'a', type: 'select', options: ['x'], max: 1 }, 'max'],
        [{ name: 'a', type: 'text', min: 1.5 }, 'min'],
        [{ name: 'a', type: 'url', max: 300 }, 'max'],
        [{ name: 'a', type: 'select', options: ['x', 'y'], multiple: true, unique: true }, 'indexed'],
        [{ name: 'a', type: 'text', max: 3, default: 'long' }, 'default'],
        [{ name: 'a', type: 'select', options: ['x', 'y'], multiple: true, default: 'x' }, 'default'],
        [{ name: 'a', type: 'color', default: 'blue' }, 'default'],
        [{ name: 'a', type: 'colour' }, 'type'],
      ];
      for (const [field, rule] of cases)
        expect(await refusedPaths(await define([field])), JSON.stringify(field)).to.include(`body.fields.0.${rule}`);
      const ok = await define([
        { name: 'a', type: 'text', pattern: '^(ab)+[0-9]{2,}$', min: 0, max: 255 },
        { name: 'b', type: 'select', options: ['x', 'y'], multiple: true, default: ['y'] },
        { name: 'c', type: 'number', min: 3, max: 3 },
      ]);
      expect(ok.status).to.equal(201);
    });

    it('converts a select to multiple (its values become lists), refuses the way back, and keeps rule changes', async function () {
      const fields = [{ name: 'pick', type: 'select', options: ['x', 'y'] }];
      await dataOf(await admin().post('/api/collections', { name: 'picks', fields }), 201);
      const one = (await dataOf(await as(t, 'editor').post('/api/collections/picks', { pick: 'x' }), 201))._id;
      const multiple = { ...fields[0], multiple: true };
      await dataOf(await admin().patch('/api/collections/picks/schema', { fields: [multiple] }));
      expect((await dataOf(await as(t, 'editor').get(`/api/collections/picks/${one}`))).pick).to.deep.equal(['x']);
      expect(await refusedPaths(await admin().patch('/api/collections/picks/schema', { fields }))).to.deep.equal(['body.fields.0.type']);
      const withText = [multiple, { name: 'note', type: 'text' }];
      await dataOf(await admin().patch('/api/collections/picks/schema', { fields: withText }));
      const ruled = await dataOf(
        await admin().patch('/api/collections/picks/schema', { fields: [multiple, { name: 'note', type: 'text', max: 3 }] }),
      );
      expect(ruled.fields[1]).to.deep.equal({ name: 'note', type: 'text', max: 3 });
      expect(await refusedPaths(await as(t, 'editor').post('/api/collections/picks', { note: 'four' }))).to.deep.equal(['body.note']);
    });
  });
}

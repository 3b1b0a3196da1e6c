import { expect } from 'chai';
import { as, dataOf, failureOf, graphqlData } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { countStatements } from '../helpers/sql-statements.js';

// Issue 40, "pagination that stays fast": `after=` / `before=` cursors beside page numbers. A walk by cursor meets every
// entry once in the list's order (sorts with ties and NULLs, ascending and descending, several fields), forwards and
// backwards; it stays in place when entries are written meanwhile (page numbers shift); mistakes are 400 naming the
// parameter; and the total of a list is counted once until the next write to the collection.
type Entry = Record<string, any>;
const COUNT = 57;

for (const variant of DB_VARIANTS) {
  describe(`content: cursor pagination (${variant.name})`, function () {
    this.timeout(120000);
    const t = useIdentityKernel(variant, {
      seed: async () => {
        const admin = as(t, 'admin');
        await dataOf(
          await admin.post('/api/collections', {
            name: 'notes',
            fields: [
              { name: 'title', type: 'text' },
              { name: 'rank', type: 'number' },
            ],
          }),
          201,
        );
        // Ranks repeat (ties broken by id) and every fifth is empty (NULL); every fourth entry is a draft.
        for (let i = 0; i < COUNT; i++)
          await dataOf(
            await admin.post('/api/collections/notes', {
              title: `Note ${String(i % 9).padStart(2, '0')}`,
              ...(i % 5 === 0 ? {} : { rank: i % 7 }),
              status: i % 4 === 0 ? 'draft' : 'published',
            }),
            201,
          );
      },
    });
    const list = (query: string, identity = 'admin') => as(t, identity).get(`/api/collections/notes?${query}`);
    /** The ids in the list's order, by page numbers (the reference). */
    const byPages = async (sort: string, identity = 'admin') =>
      (await dataOf(await list(`limit=100&sort=${encodeURIComponent(sort)}`, identity))).items.map((e: Entry) => e._id);
    /** A whole walk by cursor, forwards from `after=` or backwards from `before=` of the last page. */
    const walk = async (sort: string, limit: number, identity = 'admin') => {
      const s = `sort=${encodeURIComponent(sort)}&limit=${limit}`;
      const forward: string[] = [];
      let cursor: string | null = '';
      let last: Entry = {};
      for (let n = 0; cursor !== null && n < 50; n++) {
        last = await dataOf(await list(`${s}&after=${encodeURIComponent(cursor)}`, identity));
        expect(last.page).to.equal(null);
        forward.push(...last.items.map((e: Entry) => e._id));
        cursor = last.nextCursor;
      }
      const backward: string[] = [...last.items.map((e: Entry) => e._id)];
      cursor = last.prevCursor;
      for (let n = 0; cursor !== null && n < 50; n++) {
        const page: Entry = await dataOf(await list(`${s}&before=${encodeURIComponent(cursor)}`, identity));
        backward.unshift(...page.items.map((e: Entry) => e._id));
        cursor = page.prevCursor;
      }
      return { forward, backward, total: last.total };
    };

    for (const sort of ['-createdAt', 'rank', '-rank', 'title,-rank', 'rank:desc,title:asc'])
      it(`walks every entry once in the order of sort=${sort}, forwards and backwards`, async function () {
        const expected = await byPages(sort);
        expect(expected).to.have.length(COUNT);
        const { forward, backward, total } = await walk(sort, 10);
        expect(forward).to.deep.equal(expected);
        expect(backward).to.deep.equal(expected);
        expect(total).to.equal(COUNT);
      });

    it('a reader who sees published entries only walks those', async function () {
      const expected = await byPages('rank', 'viewer');
      expect(expected).to.have.length(COUNT - Math.ceil(COUNT / 4));
      const { forward, total } = await walk('rank', 7, 'viewer');
      expect(forward).to.deep.equal(expected);
      expect(total).to.equal(expected.length);
    });

    it('stays in place when entries are written meanwhile (a page number would shift)', async function () {
      const admin = as(t, 'admin');
      const before = await byPages('-createdAt');
      const first = await dataOf(await list('limit=10&after='));
      // Two newer entries (they sort first) and one of the first page deleted: page 2 by number now repeats one.
      const newer = await dataOf(await admin.post('/api/collections/notes', { title: 'Newer', rank: 1 }), 201);
      const made = await dataOf(await admin.post('/api/collections/notes', { title: 'Newest', rank: 1 }), 201);
      expect((await admin.delete(`/api/collections/notes/${before[3]}`)).status).to.be.oneOf([200, 204]);
      const second = await dataOf(await list(`limit=10&after=${encodeURIComponent(first.nextCursor)}`));
      expect(second.items.map((e: Entry) => e._id)).to.deep.equal(before.slice(10, 20));
      expect(second.total).to.equal(COUNT + 1); // two more, one fewer
      const byNumber = await dataOf(await list('limit=10&page=2'));
      expect(byNumber.items.map((e: Entry) => e._id)).to.not.deep.equal(before.slice(10, 20));
      // The new entries are before the walk's start: walking back from the second page finds them, in order.
      const back = await dataOf(await list(`limit=10&before=${encodeURIComponent(second.prevCursor)}`));
      const kept = before.slice(0, 10).filter((id: string) => id !== before[3]);
      expect(back.items.map((e: Entry) => e._id)).to.deep.equal([newer._id, ...kept]);
      const start = await dataOf(await list(`limit=10&before=${encodeURIComponent(back.prevCursor)}`));
      expect(start.items.map((e: Entry) => e._id)).to.deep.equal([made._id]);
      expect(start.prevCursor).to.equal(null);
    });

    it('refuses mistakes with 400 naming the parameter, and changes nothing', async function () {
      const first = await dataOf(await list('limit=5&after=&sort=rank'));
      const cases: Array<[string, string]> = [
        [`after=${encodeURIComponent(first.nextCursor)}&sort=rank&page=2`, 'query.page'],
        [`after=${encodeURIComponent(first.nextCursor)}&before=${encodeURIComponent(first.nextCursor)}&sort=rank`, 'query.before'],
        ['after=not-a-cursor&sort=rank', 'query.after'],
        [`after=${Buffer.from('{"s":"rank","v":[{"x":1},"a"]}').toString('base64url')}&sort=rank`, 'query.after'],
        [`after=${encodeURIComponent(first.nextCursor)}&sort=-rank`, 'query.after'],
        ['before=&sort=rank', 'query.before'],
      ];
      for (const [query, path] of cases) {
        const res = await list(query);
        const body = (await failureOf(res, 400)) as { error: string; issues?: Array<{ path: string }> };
        expect(body.error, query).to.equal('VALIDATION_ERROR');
        expect(JSON.stringify(body), query).to.include(path);
      }
    });

    it('refuses a page by number past the 10,000th entry with PAGE_TOO_DEEP, pointing to cursors', async function () {
      // Page 401 of 25 starts at entry 10,000: still served (empty here); page 402 starts past it.
      const last = await dataOf(await list('limit=25&page=401'));
      expect(last.items).to.deep.equal([]);
      expect(last.total).to.equal((await dataOf(await list('limit=25'))).total);
      for (const query of ['limit=25&page=402', 'limit=100&page=102', 'limit=1&page=10002']) {
        const body = (await failureOf(await list(query), 400)) as { error: string; message: string; maxOffset: number };
        expect(body.error, query).to.equal('PAGE_TOO_DEEP');
        expect(body.maxOffset).to.equal(10000);
        expect(body.message).to.include('after=');
      }
      // GraphQL says the same, and a cursor walk is not limited.
      const res = await t.request('/api/graphql', {
        method: 'POST',
        identity: 'admin',
        json: { query: '{ notes(page: 402, limit: 25) { total } }' },
      });
      const gql = (await res.json()) as { errors: Array<{ extensions: { code: string } }> };
      expect(gql.errors[0]!.extensions.code).to.equal('PAGE_TOO_DEEP');
      expect((await dataOf(await list('limit=25&after='))).items).to.have.length(25);
    });

    it('walks by cursor through GraphQL (after, before, nextCursor, prevCursor; page null)', async function () {
      const expected = await byPages('rank');
      const seen: string[] = [];
      let after = '';
      let page: Entry = {};
      for (let n = 0; n < 20; n++) {
        page = (
          await graphqlData(
            t,
            `{ notes(sort: "rank", limit: 20, after: ${JSON.stringify(after)}) { items { _id } page nextCursor prevCursor total } }`,
            'admin',
          )
        ).notes;
        expect(page.page).to.equal(null);
        seen.push(...page.items.map((e: Entry) => e._id));
        if (page.nextCursor === null) break;
        after = page.nextCursor;
      }
      expect(seen).to.deep.equal(expected);
      const back = (
        await graphqlData(
          t,
          `{ notes(sort: "rank", limit: 20, before: ${JSON.stringify(page.prevCursor)}) { items { _id } nextCursor } }`,
          'admin',
        )
      ).notes;
      expect(back.items.map((e: Entry) => e._id)).to.deep.equal(expected.slice(-(20 + page.items.length), -page.items.length));
      // Read by page, the cursors are null and the page is named.
      const byNumber = (await graphqlData(t, '{ notes(page: 2, limit: 20) { page nextCursor prevCursor } }', 'admin')).notes;
      expect(byNumber).to.deep.equal({ page: 2, nextCursor: null, prevCursor: null });
    });

    it('counts a list once per version of the collection: the next pages read no COUNT until a write', async function () {
      const first = await dataOf(await list('limit=10&after=&sort=rank'));
      const { statements } = await countStatements(t.kernel.sequelize, () =>
        list(`limit=10&after=${encodeURIComponent(first.nextCursor)}&sort=rank`).then((r) => r.json()),
      );
      expect(statements.some((s) => /SELECT COUNT\(\*\)/i.test(s))).to.equal(false);
      expect(statements.some((s) => /^\s*SELECT (`?\w+`?\.)?\*/i.test(s))).to.equal(true);
      // A page by number of the same list reuses it too; a write makes the next list count again, with the new total.
      const third = await countStatements(t.kernel.sequelize, () => list('limit=10&page=3&sort=rank').then((r) => r.json()));
      expect(third.statements.some((s) => /SELECT COUNT\(\*\)/i.test(s))).to.equal(false);
      expect(third.value.data.total).to.equal(first.total);
      await dataOf(await as(t, 'admin').post('/api/collections/notes', { title: 'One more' }), 201);
      const after = await countStatements(t.kernel.sequelize, () =>
        list(`limit=10&after=${encodeURIComponent(first.nextCursor)}&sort=rank`).then((r) => r.json()),
      );
      expect(after.statements.some((s) => /SELECT COUNT\(\*\)/i.test(s))).to.equal(true);
      expect(after.value.data.total).to.equal(first.total + 1);
    });
  });
}

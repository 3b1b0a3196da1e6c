import { expect } from 'chai';
import { responseCookie, type TestKernel, type TestResponse, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { AUTHOR_RULES } from '../helpers/author-role.js';

/**
 * Issue 38: the rules of roles (API decisions, "Roles and rules") on every surface that returns or writes
 * entries, with one role: an "author" who reads every published post and its own drafts without the field
 * `internalNotes`, and edits and deletes only its own posts. REST lists (pages and totals), single reads,
 * filter, sort and search, populate, GraphQL, the in-process client, writes, and the change of a rule
 * applied at once.
 */
const PASSWORD = 'correct horse battery';
const CONFIG = { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' as const } } } };

type Body = { success: boolean; data: any; error?: string; message?: string };

function client(t: TestKernel) {
  let n = 0;
  const call = (method: string, path: string, cookie: string | null, json?: unknown) =>
    t.request(path, { method, headers: cookie ? { cookie } : {}, ...(json === undefined ? {} : { json }) });
  async function signIn(role: string) {
    const email = `rules-${role}-${++n}-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const { _id } = await t.kernel.container
      .resolve<{ create(i: object): Promise<{ _id: string }> }>('users')
      .create({ email, password: PASSWORD, role });
    const res = await call('POST', '/api/user/login', null, { email, password: PASSWORD });
    expect(res.status, `sign-in as ${role}`).to.equal(200);
    return { id: _id, cookie: responseCookie(res)! };
  }
  const body = async (res: TestResponse) => (await res.json()) as Body;
  const data = async (res: TestResponse, status = 200) => {
    const b = await body(res);
    expect(res.status, JSON.stringify(b)).to.equal(status);
    return b.data;
  };
  return { call, signIn, body, data };
}

for (const variant of DB_VARIANTS) {
  describe(`rules of roles on every surface (${variant.name})`, function () {
    this.timeout(90000);
    const t = useTestKernel({ db: variant.name, config: CONFIG }, { variant });
    const { call, signIn, body, data } = client(t);
    let admin: { id: string; cookie: string };
    let ann: { id: string; cookie: string };
    let bob: { id: string; cookie: string };
    const ids: Record<string, string> = {};

    before(async function () {
      admin = await signIn('admin');
      await data(await call('POST', '/api/collections', admin.cookie, { name: 'tags', fields: [{ name: 'label', type: 'text' }] }), 201);
      ids.tag = (await data(await call('POST', '/api/collections/tags', admin.cookie, { label: 'news', status: 'published' }), 201))._id;
      await data(
        await call('POST', '/api/collections', admin.cookie, {
          name: 'posts',
          fields: [
            { name: 'title', type: 'text', required: true },
            { name: 'body', type: 'text' },
            { name: 'internalNotes', type: 'text' },
            // Every post is tagged `news`: the tag's inverse field `posts` lists them.
            { name: 'tag', type: 'relation', collection: 'tags', inverseName: 'posts' },
          ],
        }),
        201,
      );
      await data(
        await call('POST', '/api/collections', admin.cookie, {
          name: 'pages',
          fields: [
            { name: 'heading', type: 'text', required: true },
            { name: 'featured', type: 'relation', collection: 'posts', cardinality: 'many' },
          ],
        }),
        201,
      );
      await data(
        await call('POST', '/api/roles', admin.cookie, {
          name: 'author',
          description: 'Writes its own posts',
          permissions: ['content:read', 'content:write'],
          rules: AUTHOR_RULES,
        }),
        201,
      );
      ann = await signIn('author');
      bob = await signIn('author');
      const make = async (who: { cookie: string }, key: string, status: string, notes: string) => {
        ids[key] = (await data(await call('POST', '/api/collections/posts', who.cookie, { title: key, body: `${key} text`, status }), 201))
          ._id as string;
        // The notes are written by the admin (the authors' rule does not let them write the field).
        await data(await call('PATCH', `/api/collections/posts/${ids[key]}`, admin.cookie, { internalNotes: notes, tag: ids.tag }));
      };
      await make(ann, 'ann-published', 'published', 'secret-ann-pub');
      await make(ann, 'ann-draft', 'draft', 'secret-ann-draft');
      await make(bob, 'bob-published', 'published', 'secret-bob-pub');
      await make(bob, 'bob-draft', 'draft', 'secret-bob-draft');
      await make(admin, 'admin-draft', 'draft', 'zebra');
      ids.page = (
        await data(
          await call('POST', '/api/collections/pages', admin.cookie, {
            heading: 'Home',
            status: 'published',
            featured: [ids['ann-draft'], ids['bob-draft'], ids['bob-published']],
          }),
          201,
        )
      )._id as string;
    });

    const titles = (items: Array<{ title: string }>) => items.map((e) => e.title).sort();

    it('REST lists: only the entries the rule reads, with a right total, without the hidden field', async function () {
      const list = await data(await call('GET', '/api/collections/posts?limit=2&sort=title', ann.cookie));
      expect(list.total).to.equal(3);
      expect(list.items).to.have.length(2);
      const all = await data(await call('GET', '/api/collections/posts?limit=50', ann.cookie));
      expect(titles(all.items)).to.deep.equal(['ann-draft', 'ann-published', 'bob-published']);
      for (const e of all.items) {
        expect(e).to.not.have.property('internalNotes');
        expect(e).to.include.keys('_id', 'title', 'body', 'status', 'createdBy');
      }
      // Bob sees his own draft, not Ann's: the same role, a different `$user` (never the same cached answer).
      const bobs = await data(await call('GET', '/api/collections/posts?limit=50', bob.cookie));
      expect(titles(bobs.items)).to.deep.equal(['ann-published', 'bob-draft', 'bob-published']);
      // The admin sees everything, notes included.
      const everything = await data(await call('GET', '/api/collections/posts?limit=50', admin.cookie));
      expect(everything.total).to.equal(5);
      expect(everything.items.every((e: any) => typeof e.internalNotes === 'string')).to.equal(true);
    });

    it('filter, sort and search: by the hidden field refused or not looked in; by system fields allowed', async function () {
      const byNotes = await call(
        'GET',
        `/api/collections/posts?filter=${encodeURIComponent('{"internalNotes":"secret-bob-pub"}')}`,
        ann.cookie,
      );
      expect(byNotes.status).to.equal(403);
      expect((await body(byNotes)).error).to.equal('FIELD_FORBIDDEN');
      expect((await call('GET', '/api/collections/posts?sort=internalNotes', ann.cookie)).status).to.equal(403);
      // Search does not look in the hidden field: a word only the notes hold finds nothing.
      expect((await data(await call('GET', '/api/collections/posts?search=secret', ann.cookie))).total).to.equal(0);
      expect((await data(await call('GET', '/api/collections/posts?search=secret', admin.cookie))).total).to.equal(4);
      // A list filter by the author, a system field.
      const mine = await data(
        await call('GET', `/api/collections/posts?filter=${encodeURIComponent(JSON.stringify({ createdBy: ann.id }))}`, ann.cookie),
      );
      expect(titles(mine.items)).to.deep.equal(['ann-draft', 'ann-published']);
    });

    it('single reads: another author’s draft is 404, a published entry comes without the hidden field', async function () {
      expect((await call('GET', `/api/collections/posts/${ids['bob-draft']}`, ann.cookie)).status).to.equal(404);
      expect((await call('GET', `/api/collections/posts/${ids['admin-draft']}`, ann.cookie)).status).to.equal(404);
      const pub = await data(await call('GET', `/api/collections/posts/${ids['bob-published']}`, ann.cookie));
      expect(pub.title).to.equal('bob-published');
      expect(pub).to.not.have.property('internalNotes');
      const own = await data(await call('GET', `/api/collections/posts/${ids['ann-draft']}`, ann.cookie));
      expect(own.title).to.equal('ann-draft');
    });

    it('populate: related entries keep to the rule (others’ drafts left out, hidden field left out)', async function () {
      const page = await data(await call('GET', `/api/collections/pages/${ids.page}?populate=featured`, ann.cookie));
      expect(titles(page.featured)).to.deep.equal(['ann-draft', 'bob-published']);
      for (const e of page.featured) expect(e).to.not.have.property('internalNotes');
      const list = await data(await call('GET', '/api/collections/pages?populate=featured', bob.cookie));
      expect(titles(list.items[0].featured)).to.deep.equal(['bob-draft', 'bob-published']);
    });

    it('relation paths in filters keep to the rule on the collection they step into (its entries and its fields)', async function () {
      const pagesWhere = (filter: object, who: { cookie: string }) =>
        call('GET', `/api/collections/pages?filter=${encodeURIComponent(JSON.stringify(filter))}`, who.cookie);
      // The page features Bob's draft, which Ann may not read: a filter through the relation does not find it.
      expect((await data(await pagesWhere({ 'featured.title': 'bob-draft' }, ann))).total).to.equal(0);
      expect((await data(await pagesWhere({ 'featured.title': 'bob-draft' }, bob))).total).to.equal(1);
      expect((await data(await pagesWhere({ 'featured.title': 'ann-draft' }, ann))).total).to.equal(1);
      // A path through the field the rule hides is refused, as the field itself is.
      const hidden = await pagesWhere({ 'featured.internalNotes': 'secret-bob-pub' }, ann);
      expect(hidden.status).to.equal(403);
      expect((await body(hidden)).error).to.equal('FIELD_FORBIDDEN');
      expect((await data(await pagesWhere({ 'featured.internalNotes': 'secret-bob-pub' }, admin))).total).to.equal(1);
    });

    it('inverse fields list only the source entries the rule lets the caller read (none when it hides the relation)', async function () {
      const all = await data(await call('GET', `/api/collections/tags/${ids.tag}`, admin.cookie));
      expect(all.posts).to.have.length(5);
      // The authors' read rule leaves `tag` out of posts: the inverse would tell it.
      expect((await data(await call('GET', `/api/collections/tags/${ids.tag}`, ann.cookie))).posts).to.deep.equal([]);
      // A role that reads drafts only (with their tag) sees those among the tag's posts, in lists and single reads.
      await data(
        await call('POST', '/api/roles', admin.cookie, {
          name: 'draft-reader',
          permissions: ['content:read', 'content:write'],
          rules: [{ action: 'read', collection: 'posts', where: { status: 'draft' } }],
        }),
        201,
      );
      const reader = await signIn('draft-reader');
      const drafts = [ids['ann-draft'], ids['bob-draft'], ids['admin-draft']].sort();
      expect([...(await data(await call('GET', `/api/collections/tags/${ids.tag}`, reader.cookie))).posts].sort()).to.deep.equal(drafts);
      const list = await data(await call('GET', '/api/collections/tags', reader.cookie));
      expect([...list.items[0].posts].sort()).to.deep.equal(drafts);
      // Filtering tags by their inverse field keeps to the rule too.
      const byPost = (id: string) =>
        call('GET', `/api/collections/tags?filter=${encodeURIComponent(JSON.stringify({ 'posts.title': id }))}`, reader.cookie);
      expect((await data(await byPost('bob-published'))).total).to.equal(0);
      expect((await data(await byPost('bob-draft'))).total).to.equal(1);
    });

    it('GraphQL: lists, totals and single entries keep to the rule; the hidden field reads null', async function () {
      const gql = async (query: string, who = ann) => {
        const res = await call('POST', '/api/graphql', who.cookie, { query });
        const b = (await res.json()) as { data?: any; errors?: unknown };
        expect(res.status, JSON.stringify(b)).to.equal(200);
        return b;
      };
      const listed = await gql('{ posts(limit: 50) { total items { _id title internalNotes } } }');
      expect(listed.errors, JSON.stringify(listed.errors)).to.equal(undefined);
      expect(listed.data.posts.total).to.equal(3);
      expect(titles(listed.data.posts.items)).to.deep.equal(['ann-draft', 'ann-published', 'bob-published']);
      expect(listed.data.posts.items.every((e: any) => e.internalNotes === null)).to.equal(true);
      const other = await gql(`{ post(_id: "${ids['bob-draft']}") { _id title } }`);
      expect(other.data?.post ?? null).to.equal(null);
    });

    it('the in-process client acting as the author sees what the API answers', async function () {
      const factory = t.kernel.container.resolve<(identity: object) => any>('contentClient');
      const identity = {
        kind: 'user',
        userId: ann.id,
        role: 'author',
        permissions: ['content:read', 'content:write'],
        tenantId: 'default',
        rules: AUTHOR_RULES,
      };
      const client = factory(identity);
      const list = await client.entries('posts').list({ limit: 50 });
      expect(titles(list.items)).to.deep.equal(['ann-draft', 'ann-published', 'bob-published']);
      expect(list.items.some((e: any) => 'internalNotes' in e)).to.equal(false);
    });

    it('writes: own posts only, listed fields only; others are 403 and nothing changes', async function () {
      const mineUpdate = await call('PATCH', `/api/collections/posts/${ids['ann-draft']}`, ann.cookie, { title: 'ann-draft' });
      expect(mineUpdate.status).to.equal(200);
      const others = await call('PATCH', `/api/collections/posts/${ids['bob-published']}`, ann.cookie, { title: 'taken over' });
      expect(others.status).to.equal(403);
      expect((await body(others)).error).to.equal('FORBIDDEN');
      const notes = await call('PATCH', `/api/collections/posts/${ids['ann-draft']}`, ann.cookie, { internalNotes: 'mine now' });
      expect(notes.status).to.equal(403);
      const refused = await body(notes);
      expect(refused.error).to.equal('FIELD_FORBIDDEN');
      expect((refused as any).fields).to.deep.equal(['internalNotes']);
      // Creating with the hidden field is refused too: the role has no create rule, so content:write decides create,
      // and no rule limits its fields.
      expect((await call('DELETE', `/api/collections/posts/${ids['bob-draft']}`, ann.cookie)).status).to.equal(403);
      const stored = await data(await call('GET', `/api/collections/posts/${ids['bob-published']}`, admin.cookie));
      expect(stored.title).to.equal('bob-published');
      expect(stored.internalNotes).to.equal('secret-bob-pub');
      const own = await data(await call('GET', `/api/collections/posts/${ids['ann-draft']}`, admin.cookie));
      expect(own.internalNotes).to.equal('secret-ann-draft');
      // Publishing (a status change) and scheduling it keep to the publish rule: others' posts are refused.
      expect(
        (await call('PATCH', `/api/collections/posts/${ids['bob-draft']}/status`, ann.cookie, { status: 'published' })).status,
      ).to.equal(403);
      const later = new Date(Date.now() + 3600_000).toISOString();
      expect((await call('PUT', `/api/collections/posts/${ids['bob-draft']}/schedule`, ann.cookie, { publishAt: later })).status).to.equal(
        404,
      );
      expect(
        (await call('PUT', `/api/collections/posts/${ids['bob-published']}/schedule`, ann.cookie, { unpublishAt: later })).status,
      ).to.equal(403);
      expect((await call('PUT', `/api/collections/posts/${ids['ann-draft']}/schedule`, ann.cookie, { publishAt: later })).status).to.equal(
        200,
      );
      // Revisions: of an entry she may not read, none (404); of hers, without the hidden field.
      expect((await call('GET', `/api/collections/posts/${ids['bob-draft']}/revisions`, ann.cookie)).status).to.equal(404);
      const history = await data(await call('GET', `/api/collections/posts/${ids['ann-draft']}/revisions`, ann.cookie));
      expect(history.length).to.be.greaterThan(0);
      for (const r of history) expect(r.data).to.not.have.property('internalNotes');
      // Her own entry she may delete.
      const temp = (await data(await call('POST', '/api/collections/posts', ann.cookie, { title: 'temp' }), 201))._id;
      expect((await call('DELETE', `/api/collections/posts/${temp}`, ann.cookie)).status).to.equal(200);
    });

    it("API keys and website tokens keep to the creator's rules; a key's scope narrows it to collections and actions", async function () {
      const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
      const withKey = (method: string, path: string, key: string, json?: unknown) =>
        t.request(path, { method, headers: bearer(key), ...(json === undefined ? {} : { json }) });
      const key = (
        await data(await call('POST', '/api/api-keys', ann.cookie, { name: 'ann', permissions: ['content:read', 'content:write'] }), 201)
      ).key as string;
      const listed = await data(await withKey('GET', '/api/collections/posts?limit=50', key));
      expect(titles(listed.items)).to.deep.equal(['ann-draft', 'ann-published', 'bob-published']);
      expect(listed.items.some((e: any) => 'internalNotes' in e)).to.equal(false);
      expect((await withKey('PATCH', `/api/collections/posts/${ids['bob-published']}`, key, { title: 'x' })).status).to.equal(403);
      const token = (await data(await call('POST', '/api/website-tokens', ann.cookie, { name: 'site' }), 201)).token as string;
      expect((await withKey('GET', `/api/collections/posts/${ids['bob-draft']}`, token)).status).to.equal(404);
      expect((await withKey('PATCH', `/api/collections/posts/${ids['bob-published']}`, token, { title: 'x' })).status).to.equal(403);
      // A key scoped to reading pages: posts are refused, pages are read, nothing is written.
      const scoped = await data(
        await call('POST', '/api/api-keys', admin.cookie, {
          name: 'pages-reader',
          permissions: ['content:read', 'content:write'],
          scope: [{ collection: 'pages', actions: ['read'] }],
        }),
        201,
      );
      expect(scoped.scope).to.deep.equal([{ collection: 'pages', actions: ['read'] }]);
      expect((await withKey('GET', '/api/collections/posts', scoped.key)).status).to.equal(403);
      expect((await data(await withKey('GET', '/api/collections/pages', scoped.key))).total).to.equal(1);
      expect((await withKey('POST', '/api/collections/pages', scoped.key, { heading: 'No' })).status).to.equal(403);
      expect((await withKey('DELETE', `/api/collections/pages/${ids.page}`, scoped.key)).status).to.equal(403);
      // Populate does not reach past the scope: the featured posts are not read.
      const page = await data(await withKey('GET', `/api/collections/pages/${ids.page}?populate=featured`, scoped.key));
      expect(page.featured).to.deep.equal([]);
      // A scope naming an action the key's permissions do not allow: 400 naming it.
      const bad = await call('POST', '/api/api-keys', admin.cookie, {
        name: 'bad',
        permissions: ['content:read'],
        scope: [{ collection: 'posts', actions: ['update'] }],
      });
      expect(bad.status).to.equal(400);
      expect((await body(bad)).message).to.match(/body\.scope\.0\.actions/);
    });

    it('exports: a role whose rules limit reading a collection cannot package it (a package holds whole entries)', async function () {
      await data(
        await call('POST', '/api/roles', admin.cookie, {
          name: 'exporter',
          permissions: ['content:read', 'content:export'],
          rules: [{ action: 'read', collection: 'posts', fields: ['title'] }],
        }),
        201,
      );
      const ed = await signIn('exporter');
      const refused = await call('POST', '/api/content-export/plan', ed.cookie, { collections: ['posts'] });
      expect(refused.status).to.equal(403);
      expect((await body(refused)).message).to.match(/rules limit what you read in 'posts'/);
      expect((await call('POST', '/api/content-export/validate', ed.cookie, { collections: ['pages', 'posts'] })).status).to.equal(403);
      expect((await call('POST', '/api/content-export/plan', ed.cookie, { collections: ['pages'] })).status).to.equal(200);
    });

    it('a translator kept to German reads and writes German only (403 LOCALE_FORBIDDEN elsewhere)', async function () {
      await data(await call('POST', '/api/locales', admin.cookie, { code: 'de', name: 'Deutsch', fallback: 'en' }), 201);
      await data(
        await call('POST', '/api/collections', admin.cookie, {
          name: 'articles',
          fields: [{ name: 'title', type: 'text', localized: true }],
        }),
        201,
      );
      const article = (
        await data(await call('POST', '/api/collections/articles', admin.cookie, { title: 'Hello', status: 'published' }), 201)
      )._id as string;
      await data(
        await call('POST', '/api/roles', admin.cookie, {
          name: 'translator',
          permissions: ['content:read', 'content:write'],
          rules: [
            { action: 'read', collection: 'articles', locales: ['de'] },
            { action: 'update', collection: 'articles', locales: ['de'] },
          ],
        }),
        201,
      );
      const tina = await signIn('translator');
      const english = await call('GET', `/api/collections/articles/${article}?locale=en`, tina.cookie);
      expect(english.status).to.equal(403);
      const refused = (await body(english)) as any;
      expect(refused.error).to.equal('LOCALE_FORBIDDEN');
      expect(refused.allowed).to.deep.equal(['de']);
      expect((await call('GET', '/api/collections/articles', tina.cookie)).status).to.equal(403);
      expect((await call('GET', '/api/collections/articles?locale=*', tina.cookie)).status).to.equal(403);
      const written = await data(await call('PATCH', `/api/collections/articles/${article}?locale=de`, tina.cookie, { title: 'Hallo' }));
      expect(written._locale).to.equal('de');
      expect((await data(await call('GET', `/api/collections/articles/${article}?locale=de`, tina.cookie))).title).to.equal('Hallo');
      expect((await call('PATCH', `/api/collections/articles/${article}`, tina.cookie, { title: 'Changed' })).status).to.equal(403);
      expect((await data(await call('GET', `/api/collections/articles/${article}`, admin.cookie))).title).to.equal('Hello');
    });

    it('a changed rule applies to the next request of every holder; explain names the rules', async function () {
      const role = (await data(await call('GET', '/api/roles', admin.cookie))).find((r: any) => r.name === 'author');
      expect(role.rules).to.deep.equal(AUTHOR_RULES);
      const explained = await data(await call('GET', `/api/roles/${role._id}/explain?collection=posts&action=update`, admin.cookie));
      expect(explained.allowed).to.equal(true);
      expect(explained.rules).to.deep.equal([AUTHOR_RULES[1]]);
      expect(explained.reason).to.match(/createdBy/);
      // Reading limited to published posts: Ann's own draft disappears from her list at once.
      await data(
        await call('PATCH', `/api/roles/${role._id}`, admin.cookie, {
          rules: [{ ...AUTHOR_RULES[0], where: { status: 'published' } }, AUTHOR_RULES[1], AUTHOR_RULES[2]],
        }),
      );
      const list = await data(await call('GET', '/api/collections/posts?limit=50', ann.cookie));
      expect(titles(list.items)).to.deep.equal(['ann-published', 'bob-published']);
      await data(await call('PATCH', `/api/roles/${role._id}`, admin.cookie, { rules: AUTHOR_RULES }));
      expect((await data(await call('GET', '/api/collections/posts?limit=50', ann.cookie))).total).to.equal(3);
    });
  });
}

import { expect } from 'chai';
import { generate } from 'otplib';
import { useTestKernel } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { EDITOR, apiKey, readToken, seedBlog, type Blog, SDK_KERNEL } from '../helpers/sdk-blog.js';
import { CmsError, createClient, isCmsError } from '../helpers/sdk.js';

// The client SDK (packages/sdk, issue 39 item 1) against a real kernel on 127.0.0.1: the three ways to sign in
// (session, website token, API key), errors as CmsError with the API's code, status and details, and every
// entry call (list, get, create, update, publish, unpublish, delete).

/** The CmsError a call rejects with (fails the test when it resolves or throws something else). */
async function refusal(call: Promise<unknown>): Promise<CmsError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof CmsError) return err;
    throw err;
  }
  throw new Error('the call succeeded');
}

describe('client SDK: auth, errors and entries against a kernel (sqlite)', function () {
  this.timeout(60000);
  let blog: Blog;
  const t = useTestKernel(SDK_KERNEL, { seed: async () => void (blog = await seedBlog(t)) });

  describe('session (email and password)', function () {
    it('signs in, keeps the session cookie for the next calls (writes too: no CSRF token to send), and signs out', async function () {
      const cms = createClient({ url: t.url });
      const signedIn = await cms.login(EDITOR.email, EDITOR.password);
      expect('user' in signedIn && signedIn.user.email).to.equal(EDITOR.email);
      const me = await cms.me();
      expect(me.role).to.equal('editor');
      const made = await cms.collection('posts').create({ title: 'Written in a session' });
      expect(made.status).to.equal('draft');
      await cms.collection('posts').delete(made._id);
      await cms.logout();
      const after = await refusal(cms.me());
      expect([after.code, after.status]).to.deep.equal(['AUTHENTICATION_REQUIRED', 401]);
    });

    it('two-factor: login answers requires2FA, verifyTwoFactor finishes it from the same client (its pending cookie)', async function () {
      const user = { email: 'sdk-2fa@example.com', password: 'a third long passphrase', role: 'viewer' };
      await createUsers(t, user);
      const owner = createClient({ url: t.url });
      await owner.login(user.email, user.password);
      const setup = await owner.call('POST /api/auth/2fa/setup');
      const verificationCode = await generate({ secret: setup.secret });
      await owner.call('POST /api/auth/2fa/verify-setup', {
        body: { secret: setup.secret, verificationCode, backupCodes: setup.backupCodes },
      });

      const cms = createClient({ url: t.url });
      const step = await cms.login(user.email, user.password);
      if (!('requires2FA' in step)) throw new Error('expected the second step');
      expect((await refusal(cms.me())).code).to.equal('AUTHENTICATION_REQUIRED');
      expect(await cms.verifyTwoFactor(step.userId, '000000')).to.include({ success: false, reason: 'invalid-code' });
      expect(await createClient({ url: t.url }).verifyTwoFactor(step.userId, setup.backupCodes[0]!)).to.include({
        success: false,
        reason: 'no-pending-sign-in',
      });
      expect(await cms.verifyTwoFactor(step.userId, setup.backupCodes[0]!)).to.include({ success: true, method: 'backup' });
      expect((await cms.me()).email).to.equal(user.email);
    });

    it('a wrong password is INVALID_CREDENTIALS (401), narrowed by isCmsError', async function () {
      const err = await refusal(createClient({ url: t.url }).login(EDITOR.email, 'not the password'));
      expect(isCmsError(err, 'INVALID_CREDENTIALS')).to.equal(true);
      expect(err.status).to.equal(401);
      expect(err.message).to.be.a('string').and.not.equal('');
    });
  });

  describe('website token', function () {
    it('reads published entries only (the draft stays out), with the relation populated', async function () {
      const site = createClient({ url: t.url, token: await readToken(blog.admin) });
      const page = await site.collection('posts').list({ populate: ['author'], sort: 'createdAt' });
      expect(page.items.map((p) => p.title)).to.deep.equal(blog.published);
      expect(page.total).to.equal(blog.published.length);
      expect((page.items[0]!.author as { name: string }).name).to.equal('Ada Lovelace');
    });

    it('a token narrowed to content:read may not write: FORBIDDEN (403)', async function () {
      const site = createClient({ url: t.url, token: await readToken(blog.admin, 'read-only') });
      const err = await refusal(site.collection('posts').create({ title: 'Not allowed' }));
      expect([err.code, err.status]).to.deep.equal(['FORBIDDEN', 403]);
    });

    it('a revoked token is AUTHENTICATION_REQUIRED (401)', async function () {
      const made = await blog.admin.call('POST /api/website-tokens', { body: { name: 'revoked', permissions: ['content:read'] } });
      await blog.admin.call('DELETE /api/website-tokens/:id', { params: { id: made._id } });
      const err = await refusal(createClient({ url: t.url, token: made.token }).collection('posts').list());
      expect(err.status).to.equal(401);
    });
  });

  describe('API key', function () {
    it('creates, reads, updates, publishes, unpublishes and deletes an entry', async function () {
      const cms = createClient({ url: t.url, apiKey: await apiKey(blog.admin, 'writer', ['content:read', 'content:write']) });
      const posts = cms.collection('posts');
      const made = await posts.create({ title: 'By key', author: blog.adaId });
      expect([made.status, made.version]).to.deep.equal(['draft', 1]);
      const changed = await posts.update(made._id, { title: 'By key, changed' }, { ifVersion: made.version });
      expect(changed.title).to.equal('By key, changed');
      expect((await posts.publish(made._id)).status).to.equal('published');
      const read = await posts.get(made._id, { populate: ['author'], fields: ['title', 'author'] });
      expect(read.title).to.equal('By key, changed');
      expect((read.author as { name: string } | null)?.name).to.equal('Ada Lovelace');
      expect(read).to.not.have.property('body');
      expect((await posts.unpublish(made._id)).status).to.equal('draft');
      await posts.delete(made._id);
      const gone = await refusal(posts.get(made._id));
      expect([gone.code, gone.status]).to.deep.equal(['ENTRY_NOT_FOUND', 404]);
      expect(gone.requestId).to.be.a('string');
    });

    it('a stale ifVersion is CONFLICT (409): nothing is written', async function () {
      const posts = createClient({ url: t.url, apiKey: await apiKey(blog.admin, 'stale', ['content:read', 'content:write']) }).collection(
        'posts',
      );
      const made = await posts.create({ title: 'Versioned' });
      await posts.update(made._id, { title: 'First change' });
      const err = await refusal(posts.update(made._id, { title: 'Lost change' }, { ifVersion: made.version }));
      expect([err.code, err.status]).to.deep.equal(['CONFLICT', 409]);
      expect((await posts.get(made._id)).title).to.equal('First change');
      await posts.delete(made._id);
    });

    it('a key without content:write is FORBIDDEN (403) on a write', async function () {
      const reader = createClient({ url: t.url, apiKey: await apiKey(blog.admin, 'reader', ['content:read']) });
      const err = await refusal(reader.collection('posts').create({ title: 'No' }));
      expect([err.code, err.status]).to.deep.equal(['FORBIDDEN', 403]);
    });
  });

  describe('search', function () {
    it('search() finds words across collections, grouped, with highlights; a reader finds no drafts', async function () {
      const found = await blog.admin.search('seco');
      expect(found.q).to.equal('seco');
      expect(found.results.map((r) => [r.collection, r.label, r.total])).to.deep.equal([['posts', 'Posts', 1]]);
      const [hit] = found.results[0]!.items;
      expect(hit!.title).to.equal('Second <post> & more');
      expect(hit!._highlight!.title).to.equal('<mark>Second</mark> &lt;post&gt; &amp; more');
      // Two collections; `collections` and `limit` narrow it.
      await blog.admin.collection('authors').create({ name: 'Hello Kitty', status: 'published' });
      const both = await blog.admin.search('hello');
      expect(both.results.map((r) => [r.collection, r.total])).to.deep.equal([
        ['authors', 1],
        ['posts', 1],
      ]);
      const narrowed = await blog.admin.search('hello', { collections: ['posts'], limit: 1 });
      expect(narrowed.results.map((r) => r.collection)).to.deep.equal(['posts']);
      // The draft: found by its writer, not by a site reading published entries.
      expect((await blog.admin.search('unfinished')).results.map((r) => r.total)).to.deep.equal([1]);
      const site = createClient({ url: t.url, token: await readToken(blog.admin, 'search-site') });
      expect((await site.search('unfinished')).results).to.deep.equal([]);
      const err = await refusal(site.search(''));
      expect([err.code, err.status]).to.deep.equal(['VALIDATION_ERROR', 400]);
    });
  });

  describe('errors', function () {
    it('VALIDATION_ERROR carries the issues naming the field (details of the error body)', async function () {
      const err = await refusal(blog.admin.collection('posts').create({ title: 'x', kind: 'poem' as 'news' }));
      expect([err.code, err.status]).to.deep.equal(['VALIDATION_ERROR', 400]);
      expect(err.issues.map((i) => i.path).join(' ')).to.include('kind');
      expect(err.details.issues).to.deep.equal(err.issues);
      expect(err.details).to.not.have.property('success');
    });

    it('an unknown collection is COLLECTION_NOT_FOUND, a filter on an unknown field VALIDATION_ERROR', async function () {
      const missing = await refusal(blog.admin.collection('nothing-here').list());
      expect([missing.code, missing.status]).to.deep.equal(['COLLECTION_NOT_FOUND', 404]);
      const filter = await refusal(blog.admin.collection('posts').list({ filter: { nope: 'x' } as never }));
      expect([filter.code, filter.status]).to.deep.equal(['VALIDATION_ERROR', 400]);
      expect(filter.message).to.include('nope');
    });

    it('no server at the address is NETWORK_ERROR (status 0)', async function () {
      const err = await refusal(createClient({ url: 'http://127.0.0.1:9' }).collection('posts').list());
      expect([err.code, err.status]).to.deep.equal(['NETWORK_ERROR', 0]);
    });

    it('GraphQL over HTTP answers data, and a bad query throws its code', async function () {
      const data = await blog.admin.graphql<{ posts: { total: number } }>('query { posts(status: published) { total } }');
      expect(data.posts.total).to.equal(blog.published.length);
      const err = await refusal(blog.admin.graphql('query { nope }'));
      expect(err.code).to.equal('GRAPHQL_VALIDATION_FAILED');
      expect(err.status).to.equal(400);
    });
  });
});

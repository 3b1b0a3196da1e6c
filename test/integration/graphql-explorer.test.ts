import { expect } from 'chai';
import { responseCookie, startTestKernel, type TestKernel, type TestResponse, useTestKernel } from '../helpers/kernel.js';

const ADMIN = 'owner@example.com';
const PASSWORD = 'correct horse battery';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

async function signIn(t: TestKernel, email = ADMIN): Promise<string> {
  const res = await t.request('/api/user/login', { method: 'POST', json: { email, password: PASSWORD } });
  expect(res.status, await res.clone().text()).to.equal(200);
  return responseCookie(res)!;
}

const browserGet = (t: TestKernel, path: string, cookie?: string): Promise<TestResponse> =>
  t.request(path, { headers: { accept: BROWSER_ACCEPT, ...(cookie ? { cookie } : {}) }, redirect: 'manual' });

/** The API's answer to GET /api/graphql without a query, as before the explorer existed. */
async function expectMissingQuery(res: TestResponse): Promise<void> {
  expect(res.status).to.equal(400);
  expect(res.headers.get('content-type')).to.match(/^application\/json/);
  const body = await res.json();
  expect(body).to.deep.include({ success: false, error: 'VALIDATION_ERROR' });
  expect(body.issues.map((i: { path: string }) => i.path)).to.deep.equal(['query.query']);
}

/** The script and stylesheet URLs of the page. */
function assetsOf(html: string): { scripts: string[]; styles: string[] } {
  return {
    scripts: [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!),
    styles: [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!),
  };
}

describe('GraphQL explorer at GET /api/graphql (GRAPHQL_EXPLORER)', function () {
  this.timeout(60000);

  describe('on (auto, the default), with the admin UI', () => {
    const t = useTestKernel({
      setup: true,
      config: { plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: ADMIN, password: PASSWORD } } } } },
    });

    it('a signed-in browser gets the explorer page with a strict CSP, and its scripts and stylesheet load from this server', async () => {
      const cookie = await signIn(t);
      const res = await browserGet(t, '/api/graphql', cookie);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).to.match(/(^|; )default-src 'none'(;|$)/);
      expect(csp).to.match(/(^|; )script-src 'self'(;|$)/);
      expect(csp).to.match(/(^|; )connect-src 'self'(;|$)/);
      expect(csp).to.match(/(^|; )frame-ancestors 'none'(;|$)/);
      expect(csp).not.to.match(/unsafe-(inline|eval)/);
      const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/=]{24})'/.exec(csp)?.[1];
      expect(nonce, csp).to.be.a('string');
      expect(res.headers.get('cache-control')).to.equal('no-store');
      expect(res.headers.get('vary')).to.match(/accept/i);
      const html = await res.text();
      expect(html).to.contain('<div id="explorer"></div>');
      expect(html).to.contain(`<meta name="csp-nonce" content="${nonce}" />`);
      expect(html).not.to.match(/<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script');
      expect(html).not.to.match(/https?:\/\//, 'nothing from another origin');
      const { scripts, styles } = assetsOf(html);
      expect(scripts).to.have.length(1);
      expect(styles).to.have.length(1);
      for (const url of scripts) {
        expect(url).to.match(/^\/api\/graphql\/explorer\/assets\/[\w.-]+\.js$/);
        const asset = await t.request(url);
        expect(asset.status, url).to.equal(200);
        expect(asset.headers.get('content-type')).to.match(/^text\/javascript/);
        expect(asset.headers.get('cache-control')).to.contain('immutable');
        const js = await asset.text();
        expect(js).to.contain('/api/graphql');
        expect(js).not.to.match(/fonts\.googleapis|unpkg\.com|jsdelivr/);
      }
      for (const url of styles) {
        const asset = await t.request(url);
        expect(asset.status, url).to.equal(200);
        expect(asset.headers.get('content-type')).to.match(/^text\/css/);
        expect(await asset.text()).not.to.match(/url\(\s*["']?https?:/);
      }
      expect((await t.request('/api/graphql/explorer/assets/nope.js')).status).to.equal(404);

      // What the page does: POST /api/graphql with the session cookie and a JSON body.
      const run = await t.request('/api/graphql', {
        method: 'POST',
        headers: { cookie },
        json: { query: '{ __typename collections { name } }' },
      });
      expect(run.status).to.equal(200);
      expect((await run.json()).data).to.deep.include({ __typename: 'Query' });
    });

    it('an anonymous browser gets a page saying how to sign in, linking to the sign-in that comes back to the explorer', async () => {
      const res = await browserGet(t, '/api/graphql?query=%7B__typename%7D');
      expect(res.status).to.equal(401);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.headers.get('content-security-policy')).to.match(/(^|; )default-src 'none'(;|$)/);
      const html = await res.text();
      expect(html).to.contain('Sign in to use the GraphQL explorer');
      expect(html).to.contain(`<a href="/login?returnTo=${encodeURIComponent('/api/graphql?query=%7B__typename%7D')}">Sign in</a>`);
      expect(html).to.contain('POST /api/graphql').and.contain('Authorization: Bearer');
      expect(html).not.to.match(/<script/);
    });

    it('non-browser GETs keep the API answer: 400 without a query, the result with one', async () => {
      const cookie = await signIn(t);
      await expectMissingQuery(await t.request('/api/graphql'));
      await expectMissingQuery(await t.request('/api/graphql', { headers: { cookie, accept: 'application/json' } }));
      await expectMissingQuery(await t.request('/api/graphql', { headers: { cookie, accept: 'application/graphql-response+json' } }));
      const viaGet = await t.request(`/api/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { cookie } });
      expect(viaGet.status).to.equal(200);
      expect(await viaGet.json()).to.deep.equal({ data: { __typename: 'Query' } });
    });

    it('the health check says the explorer is on (the System page links to it then)', async () => {
      const health = await t.kernel.container.resolve<any>('registries').healthChecks.list();
      const graphql = health.find((c: { id: string }) => c.id === 'graphql');
      expect((await graphql.check()).explorer).to.equal(true);
    });
  });

  describe('production (NODE_ENV=production, the default start)', () => {
    const t = useTestKernel(
      {
        setup: true,
        config: {
          env: 'production',
          plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: ADMIN, password: PASSWORD } } } },
        },
      },
      {
        seed: async () => {
          // A role that may not read content: its users get the explanation, not the explorer.
          await t.kernel.container
            .resolve<any>('sequelize')
            .getQueryInterface()
            .bulkInsert('auth_roles', [
              { tenant_id: 'default', name: 'reporter', description: 'Dashboards only', permissions: '["dashboard:read"]' },
            ]);
          const users = t.kernel.container.resolve<{ create(i: object): Promise<unknown> }>('users');
          await users.create({ email: 'viewer@example.com', password: PASSWORD, role: 'viewer', username: 'Viewer' });
          await users.create({ email: 'reporter@example.com', password: PASSWORD, role: 'reporter', username: 'Reporter' });
        },
      },
    );

    it('auto is on in production: a signed-in browser that may read content gets the explorer and its assets', async () => {
      for (const email of [ADMIN, 'viewer@example.com']) {
        const res = await browserGet(t, '/api/graphql', await signIn(t, email));
        expect(res.status, email).to.equal(200);
        const html = await res.text();
        expect(html).to.contain('<div id="explorer"></div>');
        expect(res.headers.get('content-security-policy')).to.match(/(^|; )script-src 'self'(;|$)/);
        expect(res.headers.get('x-frame-options')).to.equal('DENY');
        const [script] = assetsOf(html).scripts;
        expect((await t.request(script!)).status).to.equal(200);
      }
    });

    it('anonymous gets the sign-in page (401), a user who may not read content a 403 page saying why', async () => {
      const anonymous = await browserGet(t, '/api/graphql');
      expect(anonymous.status).to.equal(401);
      expect(await anonymous.text())
        .to.contain('Sign in to use the GraphQL explorer')
        .and.contain('href="/login?returnTo=%2Fapi%2Fgraphql"');
      const reporter = await browserGet(t, '/api/graphql', await signIn(t, 'reporter@example.com'));
      expect(reporter.status).to.equal(403);
      expect(reporter.headers.get('content-type')).to.match(/^text\/html/);
      const text = await reporter.text();
      expect(text).to.contain('not allowed to read content').and.contain('sign in</a> with another account');
      expect(text).not.to.contain('<div id="explorer">');
    });

    it('API clients keep the API answer in production: GET without Accept text/html, GET with a query, POST', async () => {
      const cookie = await signIn(t);
      await expectMissingQuery(await t.request('/api/graphql'));
      await expectMissingQuery(await t.request('/api/graphql', { headers: { cookie, accept: 'application/json' } }));
      const viaGet = await t.request(`/api/graphql?query=${encodeURIComponent('{ __typename }')}`, { headers: { cookie } });
      expect(viaGet.status).to.equal(200);
      expect(await viaGet.json()).to.deep.equal({ data: { __typename: 'Query' } });
      const viaPost = await t.request('/api/graphql', { method: 'POST', headers: { cookie }, json: { query: '{ __typename }' } });
      expect(viaPost.status).to.equal(200);
      expect(await viaPost.json()).to.deep.equal({ data: { __typename: 'Query' } });
    });
  });

  describe('on in production, without the admin UI', () => {
    const t = useTestKernel(
      {
        config: {
          env: 'production',
          plugins: { disabled: ['admin-ui'], options: { auth: { bcryptRounds: 4 }, graphql: { explorer: 'on' } } },
        },
      },
      {
        users: [{ email: ADMIN, password: PASSWORD, role: 'admin', username: 'Owner' }],
      },
    );

    it('serves the page to a signed-in browser and a 401 page to anyone else (no sign-in page to send them to)', async () => {
      const anonymous = await browserGet(t, '/api/graphql');
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get('content-type')).to.match(/^text\/html/);
      expect(await anonymous.text()).to.contain('Sign in to use the GraphQL explorer');
      const page = await browserGet(t, '/api/graphql', await signIn(t));
      expect(page.status).to.equal(200);
      expect(await page.text()).to.contain('<div id="explorer"></div>');
    });
  });

  describe('GRAPHQL_EXPLORER', () => {
    const kernels: TestKernel[] = [];
    after(async () => {
      for (const k of kernels) await k.close();
    });
    const start = async (env: NodeJS.ProcessEnv, nodeEnv: 'production' | 'test', option?: string) => {
      const t = await startTestKernel({
        env,
        config: {
          env: nodeEnv,
          plugins: { disabled: ['admin-ui'], options: { auth: { bcryptRounds: 4 }, ...(option ? { graphql: { explorer: option } } : {}) } },
        },
      });
      kernels.push(t);
      return t;
    };

    it('auto and on serve it in production, off turns it off (also in production), and the variable wins over plugins.options', async () => {
      expect((await browserGet(await start({}, 'production'), '/api/graphql')).status).to.equal(401);
      expect((await browserGet(await start({ GRAPHQL_EXPLORER: 'on' }, 'production'), '/api/graphql')).status).to.equal(401);
      await expectMissingQuery(await browserGet(await start({ GRAPHQL_EXPLORER: 'off' }, 'test', 'on'), '/api/graphql'));
      await expectMissingQuery(await browserGet(await start({}, 'production', 'off'), '/api/graphql'));
      expect((await browserGet(await start({ GRAPHQL_EXPLORER: 'auto' }, 'production', 'off'), '/api/graphql')).status).to.equal(401);
    });

    it('another value stops the boot with a message naming the variable', async () => {
      const err = await startTestKernel({ env: { GRAPHQL_EXPLORER: 'maybe' } }).then(
        (t) => {
          kernels.push(t);
          return null;
        },
        (e: Error) => e,
      );
      expect(err?.message).to.contain('GRAPHQL_EXPLORER must be auto, on or off (got "maybe")');
    });
  });
});

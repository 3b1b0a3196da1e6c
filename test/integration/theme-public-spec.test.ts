import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const NULLS = { siteName: null, logoUrl: null, accentColor: null };

/** A GET with the Host header a browser on that hostname sends (fetch may not set it). */
function getWithHost(t: TestKernel, path: string, host: string): Promise<{ status: number; body: any }> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

// The spec's line on GET /api/theme/public: "always HTTP 200 {siteName, logoUrl, accentColor}; all null
// when no tenant resolves, tenant is `default`, or any error". An installation set up as an operator
// would (the setup plugin holds SITE_NAME, the default tenant's theme has a name): the sign-in page reads
// the site's name from GET /api/setup/status instead, each tenant its own.
for (const variant of DB_VARIANTS) {
  describe(`GET /api/theme/public as the spec says, on a set-up installation (${variant.name})`, function () {
    this.timeout(120000);
    const pub = async (query: string) => {
      const res = await t.request(`/api/theme/public${query}`);
      const body = await res.json();
      expect(res.status, `${query}: ${JSON.stringify(body)}`).to.equal(200);
      expect(body.success, query).to.equal(true);
      return body.data;
    };

    const t = useTestKernel(
      {
        db: variant.name,
        setup: true,
        plugins: [fixturePlugin('test-identity')],
        config: {
          multiTenant: true,
          plugins: { options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: 'owner@example.com', password: PASSWORD } } } },
        },
      },
      {
        variant,
        seed: async () => {
          await t.kernel.container.resolve<{ set(k: string, v: unknown): Promise<void> }>('settings').set('SITE_NAME', 'Harbour & <Docs>');
        },
      },
    );

    it('all three fields are null when no tenant resolves or the tenant is default, even with a site name and a named default theme', async function () {
      for (const query of ['', '?tenantId=default', '?hostname=127.0.0.1', '?hostname=unknown.example', '?tenantId=nobody-here'])
        expect(await pub(query), query).to.deep.equal(NULLS);
      // The default tenant's theme names the site: still nulls (the spec), the theme's name is for signed-in pages.
      const current = await dataOf(await as(t, 'admin').get('/api/theme/get-current-theme'));
      await dataOf(await as(t, 'admin').post('/api/theme/update-branding', { themeId: current.id, siteName: 'Default theme name' }));
      expect(await pub('')).to.deep.equal(NULLS);
      expect(await pub('?tenantId=default')).to.deep.equal(NULLS);
    });

    it('always 200 whatever the query: control characters, NUL, broken escapes, repeated or over-long values give nulls, never 400', async function () {
      for (const query of [
        '?tenantId=%01',
        '?tenantId=a%00b',
        '?tenantId=%1F%7F',
        '?hostname=%00',
        '?hostname=acme.example%0B',
        '?%01=x',
        '?tenantId=%E0%A4%A',
        '?tenantId=%ED%A0%80',
        `?tenantId=${'a'.repeat(500)}`,
        `?hostname=${'h'.repeat(5000)}`,
        '?tenantId=a&tenantId=b',
        '?tenantId[]=a&hostname[x]=y',
        '?tenantId=default%00',
      ])
        expect(await pub(query), query).to.deep.equal(NULLS);
    });

    it("a tenant's own branding still answers, and an unreadable parameter beside it is ignored, not refused", async function () {
      const created = await t.request('/api/tenants', {
        method: 'POST',
        identity: 'admin',
        json: { id: 'acme', name: 'Acme', hostnames: ['acme.example'], admin: { email: 'boss@acme.example', password: PASSWORD } },
      });
      expect(created.status).to.equal(201);
      await dataOf(
        await as(t, 'admin', 'acme').post('/api/theme/import-preset', {
          presetJson: JSON.stringify({
            name: 'Acme',
            palette: { primary: '#0369a1' },
            branding: { siteName: 'Acme Inc', accentColor: '#f97316' },
          }),
        }),
      );
      const acme = { siteName: 'Acme Inc', logoUrl: null, accentColor: '#f97316' };
      expect(await pub('?tenantId=acme')).to.deep.equal(acme);
      expect(await pub('?hostname=acme.example')).to.deep.equal(acme);
      expect(await pub('?tenantId=acme&hostname=%01')).to.deep.equal(acme);
      // An unreadable tenantId is no tenantId: the hostname resolves.
      expect(await pub('?tenantId=%01&hostname=acme.example')).to.deep.equal(acme);
    });

    it("the sign-in page's site name comes from GET /api/setup/status: the caller's own tenant's SITE_NAME, never another's", async function () {
      const status = await dataOf(await t.request('/api/setup/status'));
      expect(status).to.deep.equal({ state: 'ready', dbValidated: true, seeded: true, complete: true, siteName: 'Harbour & <Docs>' });
      // A guest of tenant acme (resolved by the Host header) does not see the installation's name.
      const fromAcme = await getWithHost(t, '/api/setup/status', 'acme.example');
      expect(fromAcme.status).to.equal(200);
      expect(fromAcme.body.data.siteName).to.equal(null);
      const fromDefault = await getWithHost(t, '/api/setup/status', 'unknown.example');
      expect(fromDefault.body.data.siteName).to.equal('Harbour & <Docs>');
    });
  });
}

import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import type { AuditLog } from '../../kernel/audit.js';
import { createLocalClient } from '../../plugins/content/local-client.js';
import { as, dataOf, failureOf } from '../helpers/content.js';
import { fixturePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { startTwoTenantKernel, T2_HOST } from '../helpers/two-tenants.js';

// Locales of API-DECISIONS "Locales": GET /api/locales (content:read) -> data: [{code, name, isDefault, fallback}];
// POST (system:settings) -> 201; PATCH /api/locales/:code {name?, fallback?, isDefault?}; DELETE (the default -> 409).
const EN = { code: 'en', name: 'English', isDefault: true, fallback: null };

for (const variant of DB_VARIANTS) {
  describe(`content: locales (${variant.name})`, function () {
    this.timeout(60000);
    const t: TestKernel = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });
    const codes = async () => ((await dataOf(await as(t, 'viewer').get('/api/locales'))) as Array<{ code: string }>).map((l) => l.code);

    it('a new installation has en as its default; locales are added in canonical BCP 47 form with a fallback', async function () {
      expect(await dataOf(await as(t, 'viewer').get('/api/locales'))).to.deep.equal([EN]);
      const de = await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de', name: 'Deutsch' }), 201);
      expect(de).to.deep.equal({ code: 'de', name: 'Deutsch', isDefault: false, fallback: null });
      const at = await dataOf(await as(t, 'admin').post('/api/locales', { code: 'DE-at', fallback: 'de' }), 201);
      expect(at).to.deep.equal({ code: 'de-AT', name: 'Austrian German', isDefault: false, fallback: 'de' });
      const pt = await dataOf(await as(t, 'admin').post('/api/locales', { code: 'pt-br', name: 'Português' }), 201);
      expect(pt.code).to.equal('pt-BR');
      expect(await codes()).to.deep.equal(['en', 'de', 'de-AT', 'pt-BR']);
      expect((await failureOf(await as(t, 'admin').post('/api/locales', { code: 'PT-BR' }), 409)).error).to.equal('CONFLICT');
    });

    it('answers 400 VALIDATION_ERROR for a code that is not BCP 47, an unknown fallback and a cycle, and changes nothing', async function () {
      for (const body of [
        { code: 'not a code' },
        { code: 'en_US' },
        { code: '*' },
        { code: 'x'.repeat(40) },
        { code: 'fr', fallback: 'zz' },
      ]) {
        const failure = await failureOf(await as(t, 'admin').post('/api/locales', body), 400);
        expect(failure.error, JSON.stringify(body)).to.equal('VALIDATION_ERROR');
      }
      // de-AT -> de; de -> de-AT would come back to de.
      const cycle = await failureOf(await as(t, 'admin').patch('/api/locales/de', { fallback: 'de-AT' }), 400);
      expect(cycle.error).to.equal('VALIDATION_ERROR');
      expect(cycle.message).to.include('cycle');
      expect((await failureOf(await as(t, 'admin').patch('/api/locales/de', { fallback: 'de' }), 400)).error).to.equal('VALIDATION_ERROR');
      expect((await failureOf(await as(t, 'admin').patch('/api/locales/en', { fallback: 'de' }), 400)).error).to.equal('VALIDATION_ERROR');
      expect((await failureOf(await as(t, 'admin').patch('/api/locales/fr', { name: 'x' }), 404)).error).to.equal('NOT_FOUND');
      expect(await codes()).to.deep.equal(['en', 'de', 'de-AT', 'pt-BR']);
      expect((await dataOf(await as(t, 'viewer').get('/api/locales')))[1]).to.deep.equal({
        code: 'de',
        name: 'Deutsch',
        isDefault: false,
        fallback: null,
      });
    });

    it('changes a name and a fallback (code in any case), and moves the default', async function () {
      const changed = await dataOf(await as(t, 'admin').patch('/api/locales/PT-br', { name: 'Portuguese (Brazil)', fallback: 'en' }));
      expect(changed).to.deep.equal({ code: 'pt-BR', name: 'Portuguese (Brazil)', isDefault: false, fallback: 'en' });
      expect(await dataOf(await as(t, 'admin').patch('/api/locales/pt-BR', { fallback: null }))).to.include({ fallback: null });
      const de = await dataOf(await as(t, 'admin').patch('/api/locales/de', { isDefault: true }));
      expect(de).to.deep.equal({ code: 'de', name: 'Deutsch', isDefault: true, fallback: null });
      const list = await dataOf(await as(t, 'viewer').get('/api/locales'));
      expect(list.filter((l: { isDefault: boolean }) => l.isDefault).map((l: { code: string }) => l.code)).to.deep.equal(['de']);
      expect(list[0].code).to.equal('de');
      // Making a locale with a fallback the default drops its fallback (the default has none).
      const at = await dataOf(await as(t, 'admin').patch('/api/locales/de-AT', { isDefault: true }));
      expect(at).to.deep.equal({ code: 'de-AT', name: 'Austrian German', isDefault: true, fallback: null });
      await dataOf(await as(t, 'admin').patch('/api/locales/en', { isDefault: true }));
      await dataOf(await as(t, 'admin').patch('/api/locales/de-AT', { fallback: 'de' }));
    });

    it('deletes a locale; the default and a locale another falls back to answer 409 CONFLICT naming why', async function () {
      const def = await failureOf(await as(t, 'admin').delete('/api/locales/en'), 409);
      expect(def.error).to.equal('CONFLICT');
      expect(def.message).to.include('default');
      const used = await failureOf(await as(t, 'admin').delete('/api/locales/de'), 409);
      expect(used.error).to.equal('CONFLICT');
      expect(used.message).to.include("'de-AT'");
      expect(await dataOf(await as(t, 'admin').delete('/api/locales/de-AT'))).to.deep.equal({ deleted: true });
      expect(await dataOf(await as(t, 'admin').delete('/api/locales/de'))).to.deep.equal({ deleted: true });
      expect((await failureOf(await as(t, 'admin').delete('/api/locales/de'), 404)).error).to.equal('NOT_FOUND');
      expect(await codes()).to.deep.equal(['en', 'pt-BR']);
    });

    it('needs system:settings to write and content:read to read', async function () {
      await failureOf(await as(t, 'editor').post('/api/locales', { code: 'fr' }), 403);
      await failureOf(await as(t, 'editor').patch('/api/locales/pt-BR', { name: 'x' }), 403);
      await failureOf(await as(t, 'editor').delete('/api/locales/pt-BR'), 403);
      expect(await dataOf(await as(t, 'editor').get('/api/locales'))).to.have.length(2);
      await failureOf(await t.request('/api/locales'), 401);
      expect(await codes()).to.deep.equal(['en', 'pt-BR']);
    });

    it('records every change in the audit trail', async function () {
      const audit = t.kernel.container.resolve<AuditLog>('audit');
      await audit.flush();
      const rows = await t.kernel.sequelize.query<{ action: string; message: string }>(
        "SELECT action, message FROM cms_audit_log WHERE action LIKE 'locale.%' ORDER BY id",
        { type: QueryTypes.SELECT },
      );
      const seen = rows.map((r) => `${r.action} ${r.message}`);
      expect(seen).to.include("locale.created Locale 'pt-BR' created");
      expect(seen).to.include("locale.changed Locale 'de' changed");
      expect(seen).to.include("locale.deleted Locale 'de-AT' deleted");
    });

    it('the in-process SDK lists, creates, changes and removes locales with the same checks', async function () {
      const sdk = createLocalClient(t.kernel);
      expect((await sdk.locales.create({ code: 'fr-ca', fallback: 'en' })).code).to.equal('fr-CA');
      expect(await sdk.locales.update('fr-CA', { name: 'Québécois' })).to.deep.equal({
        code: 'fr-CA',
        name: 'Québécois',
        isDefault: false,
        fallback: 'en',
      });
      expect((await sdk.locales.list()).map((l) => l.code)).to.deep.equal(['en', 'fr-CA', 'pt-BR']);
      await sdk.locales.remove('fr-CA');
      const viewer = createLocalClient(t.kernel, {
        kind: 'user',
        userId: null,
        role: 'viewer',
        permissions: ['content:read'],
        tenantId: 'default',
      });
      let refused: unknown;
      await viewer.locales.create({ code: 'it' }).catch((err: unknown) => (refused = err));
      expect((refused as { status?: number }).status).to.equal(403);
      expect(await codes()).to.deep.equal(['en', 'pt-BR']);
    });
  });
}

describe('content: locales are shared by every tenant (sqlite)', function () {
  this.timeout(60000);
  it("another tenant's admin reads them but cannot change them", async function () {
    const { t, t2Cookie } = await startTwoTenantKernel('sqlite');
    try {
      await dataOf(await as(t, 'admin').post('/api/locales', { code: 'de' }), 201);
      const headers = { ...T2_HOST, cookie: t2Cookie };
      const read = await t.request('/api/locales', { headers });
      expect((await dataOf(read)).map((l: { code: string }) => l.code)).to.deep.equal(['en', 'de']);
      for (const [method, path, json] of [
        ['POST', '/api/locales', { code: 'fr' }],
        ['PATCH', '/api/locales/de', { name: 'x' }],
        ['PATCH', '/api/locales/de', { isDefault: true }],
        ['DELETE', '/api/locales/de', undefined],
      ] as const) {
        const failure = await failureOf(await t.request(path, { method, headers, json }), 403);
        expect(failure.error, `${method} ${path}`).to.equal('FORBIDDEN');
      }
      expect(await dataOf(await as(t, 'admin').get('/api/locales'))).to.deep.equal([
        EN,
        { code: 'de', name: 'German', isDefault: false, fallback: null },
      ]);
    } finally {
      await t.close();
    }
  });
});

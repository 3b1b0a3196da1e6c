/**
 * Issue 32, item 1: operations on the whole installation (backups, data migrations, system jobs, other
 * tenants' cache figures and jobs, server paths in answers) belong to the installation's
 * administrators, the admins of the default tenant. Walked here as tenant t2's own admin (a real
 * sign-in on t2's hostname, MULTI_TENANT=true): 403 FORBIDDEN, or an answer scoped to t2.
 */
import { isAbsolute } from 'node:path';
import { expect } from 'chai';
import type { TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';
import { asDefaultAdmin, startTwoTenantKernel, statusAndJson as json, T2_HOST } from '../helpers/two-tenants.js';

for (const variant of DB_VARIANTS) {
  describe(`installation-wide routes as another tenant's admin (${variant.name})`, function () {
    this.timeout(120000);
    let t: TestKernel;
    let t2Cookie = '';
    const asAdmin = (path: string, body?: unknown) => asDefaultAdmin(t, path, body);
    const asT2 = (path: string, body?: unknown) =>
      t.request(path, {
        headers: { ...T2_HOST, cookie: t2Cookie },
        ...(body === undefined ? {} : { method: 'POST', json: body }),
      });

    before(async function () {
      requireVariant(this, variant);
      ({ t, t2Cookie } = await startTwoTenantKernel(variant.name));
      expect((await asAdmin('/api/collections', { name: 'notes', fields: [{ name: 'title', type: 'text' }] })).status).to.equal(201);
      expect((await asAdmin('/api/collections/notes', { title: 'default note' })).status).to.equal(201);
      // Cache traffic of the default tenant (list reads), so its figures exist.
      for (let i = 0; i < 2; i++) expect((await asAdmin('/api/collections/notes')).status).to.equal(200);
    });
    after(async () => t?.close());

    it('data migrations, system jobs and the cache figures of every tenant: 403 FORBIDDEN for t2, open to the default tenant', async () => {
      const refused: Array<[string, unknown?]> = [
        ['/api/migrations/status'],
        ['/api/migrations/history'],
        ['/api/migrations/plan', {}],
        ['/api/migrations/apply', { planId: '00000000-0000-4000-8000-000000000000', confirmed: true }],
        ['/api/migrations/verify', {}],
        ['/api/system-jobs'],
        ['/api/system-jobs', { name: 'rebuild-list-caches' }],
        ['/api/system/cache'],
        ['/api/backups'],
      ];
      for (const [path, body] of refused) {
        const r = await json(await asT2(path, body));
        expect(r.status, `${path}: ${JSON.stringify(r.body)}`).to.equal(403);
        expect(r.body.error, path).to.equal('FORBIDDEN');
      }
      for (const path of ['/api/migrations/status', '/api/system-jobs', '/api/system/cache', '/api/backups'])
        expect((await asAdmin(path)).status, path).to.equal(200);
    });

    it("cache-metrics answers t2 its own figures only; the default tenant's admin sees every tenant", async () => {
      for (let i = 0; i < 2; i++) expect((await asT2('/api/collections/notes')).status).to.equal(200);
      const all = await json(await asAdmin('/api/dashboard/cache-metrics'));
      expect(all.status).to.equal(200);
      expect(Object.keys(all.body.data.byTenant)).to.include('default');
      const own = await json(await asT2('/api/dashboard/cache-metrics'));
      expect(own.status, JSON.stringify(own.body)).to.equal(200);
      expect(Object.keys(own.body.data.byTenant)).to.deep.equal(['t2']);
      expect(own.body.data.byCategory).to.deep.equal({});
      expect(own.body.data.overall).to.deep.equal(own.body.data.byTenant.t2);
    });

    it("another tenant's job is 404 for t2; server paths (config export, system-info) are answered to the installation's admins only", async () => {
      const started = await json(await asAdmin('/api/system-jobs', { name: 'rebuild-list-caches' }));
      expect(started.status, JSON.stringify(started.body)).to.be.oneOf([200, 201, 202]);
      const jobId = started.body.data.jobId as string;
      expect((await asT2(`/api/system/jobs/${jobId}`)).status).to.equal(404);
      expect((await asAdmin(`/api/system/jobs/${jobId}`)).status).to.equal(200);

      const exported = await json(await asT2('/api/config/export', {}));
      expect(exported.status, JSON.stringify(exported.body)).to.equal(200);
      expect(isAbsolute(exported.body.data.path), exported.body.data.path).to.equal(false);
      expect(exported.body.data.path).to.not.include(t.dataDir);
      expect(exported.body.data.path).to.equal('config/sync/tenants/t2');
      const resources = await json(await asT2('/api/config/resources'));
      expect(resources.body.data.path).to.equal('config/sync/tenants/t2');
      const byAdmin = await json(await asAdmin('/api/config/export', {}));
      expect(isAbsolute(byAdmin.body.data.path)).to.equal(true);

      const disk = await json(await asT2('/api/dashboard/system-info?type=disk'));
      expect(disk.status).to.equal(200);
      expect(JSON.stringify(disk.body)).to.not.include(t.dataDir);
      const diskAdmin = await json(await asAdmin('/api/dashboard/system-info?type=disk'));
      if (diskAdmin.body.data.diskInfo.root) expect(diskAdmin.body.data.diskInfo.root.path).to.equal(t.dataDir);
    });
  });
}

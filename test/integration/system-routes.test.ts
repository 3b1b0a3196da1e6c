import { expect } from 'chai';
import { fixturePlugin, startTestKernel, tempDir, writePlugin, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

describe('system routes', function () {
  let t: TestKernel;
  before(async function () {
    const setupLike = writePlugin(
      tempDir(),
      { id: 'setup-like', provides: { healthChecks: ['setup'] } },
      "export default { register({ registries }) { registries.healthChecks.add({ id: 'setup', exposeAs: 'setup', async check() { return { status: 'ok', state: 'incomplete', progress: 40 }; } }); } };\n",
    );
    const greedy = writePlugin(
      tempDir(),
      { id: 'greedy-check', provides: { healthChecks: ['greedy'] } },
      "export default { register({ registries }) { registries.healthChecks.add({ id: 'greedy', exposeAs: 'status', async check() { return { status: 'ok', hijack: true }; } }); } };\n",
    );
    t = await startTestKernel({ plugins: [fixturePlugin('test-identity'), setupLike, greedy] });
  });
  after(async () => t?.close());

  it('publishes a health check with exposeAs at the top level, publicly (data.setup.progress)', async function () {
    const data = (await (await t.request('/api/system/health')).json()).data;
    expect(data.setup).to.deep.include({ status: 'ok', state: 'incomplete', progress: 40 });
    expect(data.checks.setup.status).to.equal('ok');
    expect(data.status, 'a check may not replace a reserved field').to.equal('ok');
  });

  it('shows a job only to its tenant, and its payload only to manage:system', async function () {
    const mine = await t.kernel.jobs.enqueue('nobody-handles-this', { secretish: 'payload' }, { tenantId: 'default' });
    const theirs = await t.kernel.jobs.enqueue('nobody-handles-this', { other: true }, { tenantId: 'acme' });
    const asEditor = await t.request(`/api/system/jobs/${mine.jobId}`, { identity: 'editor' });
    expect(asEditor.status).to.equal(200);
    const seen = (await asEditor.json()).data;
    expect(seen).to.include({ jobId: mine.jobId, status: 'queued', tenantId: 'default' });
    expect(seen).to.not.have.property('payload');
    const asAdmin = (await (await t.request(`/api/system/jobs/${mine.jobId}`, { identity: 'admin' })).json()).data;
    expect(asAdmin.payload).to.deep.equal({ secretish: 'payload' });
    expect((await t.request(`/api/system/jobs/${theirs.jobId}`, { identity: 'editor' })).status).to.equal(404);
    expect((await t.request(`/api/system/jobs/${theirs.jobId}`, { identity: 'admin' })).status).to.equal(200);
    expect((await t.request('/api/system/jobs/not-a-uuid', { identity: 'admin' })).status).to.equal(400);
    expect((await t.request(`/api/system/jobs/${mine.jobId}`, { identity: 'viewer' })).status).to.equal(403);
  });

  it('verifies the audit chain for manage:system', async function () {
    await t.kernel.audit.append({ domain: 'config', operation: 'apply', actor: { userId: 'u1', tenantId: 'default' }, outcome: 'success' });
    const res = await t.request('/api/system/audit/verify', { identity: 'admin' });
    expect((await res.json()).data).to.deep.equal({ valid: true, checked: 1 });
    expect((await t.request('/api/system/audit/verify', { identity: 'editor' })).status).to.equal(403);
  });
});

for (const variant of DB_VARIANTS) {
  describe(`system health on ${variant.name}`, function () {
    this.timeout(60000);
    const t = useTestKernel({ db: variant.name, plugins: [fixturePlugin('test-identity')] }, { variant });

    it('reports the database it runs on as ok', async function () {
      const health = (await (await t.request('/api/system/health', { identity: 'admin' })).json()).data;
      expect(health.checks.database).to.include({ status: 'ok', type: variant.name });
      expect(health.status).to.equal('ok');
    });
  });
}

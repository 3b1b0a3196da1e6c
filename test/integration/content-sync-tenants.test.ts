import { expect } from 'chai';
import type { TestKernel } from '../helpers/kernel.js';
import { startTwoTenantKernel, T2_HOST } from '../helpers/two-tenants.js';

// Content sync is per tenant: another tenant's admin neither sees a channel nor plans (with or without
// conflict resolutions), tests or deletes through it.
describe("content sync as another tenant's admin", function () {
  this.timeout(60000);
  let t: TestKernel;
  let t2Cookie: string;
  let channelId: string;
  before(async () => {
    ({ t, t2Cookie } = await startTwoTenantKernel('sqlite'));
    // A public address, stored without a connection test (nothing is sent anywhere).
    const res = await t.request('/api/content-sync/channels?test=false', {
      method: 'POST',
      identity: 'admin',
      json: { name: 'production', url: 'http://93.184.216.34', apiKey: 'sck_' + 'k'.repeat(43) },
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    channelId = (await res.json()).data.channelId;
  });
  after(async () => t?.close());

  const asT2 = (method: string, path: string, json?: unknown) =>
    t.request(path, { method, headers: { ...T2_HOST, cookie: t2Cookie }, ...(json !== undefined ? { json } : {}) });

  it("does not list the other tenant's channel", async () => {
    const res = await asT2('GET', '/api/content-sync/channels');
    expect(res.status).to.equal(200);
    expect((await res.json()).data.channels).to.deep.equal([]);
  });

  it('cannot plan, test or delete through it: 404 SYNC_CHANNEL_NOT_FOUND, and the channel stays', async () => {
    const planned = await asT2('POST', '/api/content-sync/plan', {
      channelId,
      direction: 'push',
      resolutions: { 'posts/0b0e3c9e-0c7e-4c43-9d3e-0c1f0a5b1d2e': 'source' },
    });
    expect(planned.status, await planned.clone().text()).to.equal(404);
    expect((await planned.json()).error).to.equal('SYNC_CHANNEL_NOT_FOUND');
    expect((await asT2('POST', `/api/content-sync/channels/${channelId}/test`)).status).to.equal(404);
    expect((await asT2('DELETE', `/api/content-sync/channels/${channelId}`)).status).to.equal(404);
    const own = await t.request('/api/content-sync/channels', { identity: 'admin' });
    expect((await own.json()).data.channels.map((c: { channelId: string }) => c.channelId)).to.deep.equal([channelId]);
  });
});

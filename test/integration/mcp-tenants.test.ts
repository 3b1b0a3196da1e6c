/**
 * The MCP server's admin routes as another tenant's administrator (issue 39 item 3; "every permission check has a
 * tenant"): the agent sessions of the default tenant are neither listed, read nor reverted from tenant t2, and the
 * default tenant's entries stay as the agent left them until their own administrator reverts them.
 */
import { expect } from 'chai';
import { createLocalClient } from '../../plugins/content/local-client.js';
import type { TestKernel } from '../helpers/kernel.js';
import { apiKey, body, connect, MCP_PASSWORD } from '../helpers/mcp.js';
import { startTwoTenantKernel, statusAndJson, T2_HOST } from '../helpers/two-tenants.js';
import { createUsers } from '../helpers/users.js';

const OWNER = { email: 'mcp-tenant-owner@example.com', password: MCP_PASSWORD, role: 'editor' };

describe('mcp: agent sessions are kept to their tenant (sqlite)', function () {
  this.timeout(60000);
  let t: TestKernel;
  let t2Cookie: string;
  let sessionId = '';
  let entryId = '';

  before(async function () {
    ({ t, t2Cookie } = await startTwoTenantKernel('sqlite'));
    await createUsers(t, OWNER);
    await createLocalClient(t.kernel).collections.create({ name: 'articles', fields: [{ name: 'title', type: 'text' }] } as never);
    const key = await apiKey(t, OWNER, 'tenant-agent', ['content:read', 'content:write']);
    const client = await connect(t, key);
    try {
      entryId = body(
        await client.callTool({ name: 'create_entry', arguments: { collection: 'articles', data: { title: 'By the agent' } } }),
      )._id;
    } finally {
      await client.close();
    }
    const listed = await statusAndJson(await t.request('/api/mcp/sessions', { identity: 'admin' }));
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body.data.items).to.have.length(1);
    sessionId = listed.body.data.items[0]._id;
  });
  after(async () => t?.close());

  const asT2 = (path: string, method = 'GET') =>
    t.request(path, { method, headers: { ...T2_HOST, cookie: t2Cookie, origin: 'http://t2.test' } });

  it("t2's administrator lists no session of the default tenant, and cannot read or revert one (404)", async function () {
    const listed = await statusAndJson(await asT2('/api/mcp/sessions'));
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body.data).to.include({ total: 0 });
    expect(listed.body.data.items).to.deep.equal([]);
    const one = await statusAndJson(await asT2(`/api/mcp/sessions/${sessionId}`));
    expect(one.status, JSON.stringify(one.body)).to.equal(404);
    const revert = await statusAndJson(await asT2(`/api/mcp/sessions/${sessionId}/revert`, 'POST'));
    expect(revert.status, JSON.stringify(revert.body)).to.equal(404);
    // Nothing was undone: the agent's entry is there, the session not marked reverted.
    const entry = await t.request(`/api/collections/articles/${entryId}`, { identity: 'admin' });
    expect(entry.status).to.equal(200);
    const still = await statusAndJson(await t.request(`/api/mcp/sessions/${sessionId}`, { identity: 'admin' }));
    expect(still.body.data).to.include({ revertedAt: null });
  });
});

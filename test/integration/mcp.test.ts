/**
 * The MCP server (issue 39, item 3) driven by the SDK's own client over streamable HTTP: a narrow API key lists the
 * tools, writes drafts, is refused publishing and collections outside its scope, every call is audited with the key's
 * name, bulk changes go through plan and confirm, and an administrator reverts the agent's session as one set.
 */
import { expect } from 'chai';
import type { AuditLog } from '../../kernel/audit.js';
import { createLocalClient } from '../../plugins/content/local-client.js';
import { useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';
import { apiKey, body, connect, isError, MCP_PASSWORD } from '../helpers/mcp.js';
import { signInCookie } from '../helpers/users.js';

const PASSWORD = MCP_PASSWORD;
const ADMIN = { email: 'mcp-admin@example.com', password: PASSWORD, role: 'admin' };
const OWNER = { email: 'mcp-owner@example.com', password: PASSWORD, role: 'editor' };

for (const variant of DB_VARIANTS) {
  describe(`mcp: the MCP server for agents (${variant.name})`, function () {
    this.timeout(60000);
    const t = useTestKernel(
      { db: variant.name, config: { plugins: { options: { auth: { bcryptRounds: 4 } } } } },
      { variant, users: [ADMIN, OWNER] },
    );
    let key: string;
    let client: Awaited<ReturnType<typeof connect>>;
    const ids: Record<string, string> = {};

    before(async function () {
      if (!t.kernel) return;
      const system = createLocalClient(t.kernel);
      await system.collections.create({ name: 'articles', fields: [{ name: 'title', type: 'text', required: true }] } as never);
      await system.collections.create({ name: 'pages', drafts: true, fields: [{ name: 'title', type: 'text', required: true }] } as never);
      await system.collections.create({ name: 'secrets', fields: [{ name: 'title', type: 'text' }] } as never);
      ids.draftArticle = (await system.entries('articles').create({ title: 'Before', status: 'draft' }))._id;
      ids.liveArticle = (await system.entries('articles').create({ title: 'Live article', status: 'published' }))._id;
      ids.page = (await system.entries('pages').create({ title: 'Live page', status: 'published' }))._id;
      key = await apiKey(
        t,
        OWNER,
        'claude-narrow',
        ['content:read', 'content:write'],
        [
          { collection: 'articles', actions: ['read', 'create', 'update'] },
          { collection: 'pages', actions: ['read', 'update'] },
        ],
      );
      client = await connect(t, key);
    });
    after(async () => client?.close());

    it('answers 401 MCP_API_KEY_REQUIRED without a key, and to a signed-in browser (no session cookies)', async function () {
      const init = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      };
      const headers = { accept: 'application/json, text/event-stream' };
      const none = await t.request('/api/mcp', { method: 'POST', headers, json: init });
      expect(none.status).to.equal(401);
      expect(await none.json()).to.include({ success: false, error: 'MCP_API_KEY_REQUIRED' });
      const cookie = await signInCookie(t, ADMIN.email, PASSWORD);
      const browser = await t.request('/api/mcp', { method: 'POST', headers: { ...headers, cookie: cookie!, origin: t.url }, json: init });
      expect(browser.status).to.equal(401);
      expect((await browser.json()).error).to.equal('MCP_API_KEY_REQUIRED');
      const wrong = await t.request('/api/mcp', { method: 'POST', headers: { ...headers, authorization: 'Bearer sck_nope' }, json: init });
      expect(wrong.status).to.equal(401);
      // Stateless: no server-to-client stream, no session to end.
      expect((await t.request('/api/mcp', { headers: { authorization: `Bearer ${key}` } })).status).to.equal(405);
      expect((await t.request('/api/mcp', { method: 'DELETE', headers: { authorization: `Bearer ${key}` } })).status).to.equal(405);
    });

    it('lists the tools', async function () {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name).sort()).to.deep.equal([
        'confirm_data_operation',
        'create_entry',
        'describe_model',
        'read_entry',
        'run_data_operation',
        'search_entries',
        'update_entry',
        'upload_media_by_url',
      ]);
      const model = body(await client.callTool({ name: 'describe_model', arguments: {} }));
      expect(model.collections.map((c: { name: string }) => c.name).sort(), 'only the collections of its scope').to.deep.equal([
        'articles',
        'pages',
      ]);
      const articles = model.collections.find((c: { name: string }) => c.name === 'articles');
      expect(articles.thisKeyMay).to.deep.equal({ read: true, write: true, publish: false });
    });

    it('creates a draft with a narrow key, and is refused a publish it lacks the permission for', async function () {
      const created = await client.callTool({
        name: 'create_entry',
        arguments: { collection: 'articles', data: { title: 'By the agent' } },
      });
      expect(isError(created)).to.equal(false);
      const entry = body(created);
      expect(entry).to.include({ title: 'By the agent', status: 'draft' });
      ids.created = entry._id;
      const system = createLocalClient(t.kernel);
      const before = (await system.entries('articles').list({ limit: 100 })).total;
      const refused = await client.callTool({
        name: 'create_entry',
        arguments: { collection: 'articles', data: { title: 'Go live' }, publish: true },
      });
      expect(isError(refused)).to.equal(true);
      expect(body(refused).error).to.equal('FORBIDDEN');
      expect(body(refused).message).to.match(/may not publish in 'articles'/);
      expect((await system.entries('articles').list({ limit: 100 })).total, 'nothing was written').to.equal(before);
      // A status smuggled in the data is not a publish either.
      const smuggled = body(
        await client.callTool({ name: 'create_entry', arguments: { collection: 'articles', data: { title: 'S', status: 'published' } } }),
      );
      expect(smuggled.status).to.equal('draft');
      ids.smuggled = smuggled._id;
      // Changing a published entry of a collection without drafts is live content: refused without publish.
      const live = await client.callTool({
        name: 'update_entry',
        arguments: { collection: 'articles', id: ids.liveArticle, data: { title: 'X' } },
      });
      expect(isError(live)).to.equal(true);
      expect((await system.entries('articles').get(ids.liveArticle)).title).to.equal('Live article');
    });

    it('is refused a collection outside its scope and an action its scope lacks', async function () {
      const outside = await client.callTool({ name: 'create_entry', arguments: { collection: 'secrets', data: { title: 'x' } } });
      expect(isError(outside)).to.equal(true);
      expect(body(outside).error).to.equal('FORBIDDEN');
      const read = await client.callTool({ name: 'search_entries', arguments: { collection: 'secrets' } });
      expect(body(read).error).to.equal('FORBIDDEN');
      const noCreate = await client.callTool({ name: 'create_entry', arguments: { collection: 'pages', data: { title: 'x' } } });
      expect(body(noCreate).error).to.equal('FORBIDDEN');
    });

    it('updates a draft entry in place and a published page in its working draft', async function () {
      const updated = body(
        await client.callTool({
          name: 'update_entry',
          arguments: { collection: 'articles', id: ids.draftArticle, data: { title: 'After' } },
        }),
      );
      expect(updated).to.include({ title: 'After', status: 'draft' });
      const page = body(
        await client.callTool({ name: 'update_entry', arguments: { collection: 'pages', id: ids.page, data: { title: 'Draft title' } } }),
      );
      expect(page).to.include({ title: 'Draft title', hasDraft: true });
      const system = createLocalClient(t.kernel);
      expect((await system.entries('pages').get(ids.page)).title, 'the published page is unchanged').to.equal('Live page');
      const found = body(await client.callTool({ name: 'search_entries', arguments: { collection: 'articles', search: 'After' } }));
      expect(found.items.map((e: { _id: string }) => e._id)).to.include(ids.draftArticle);
    });

    it('plans a bulk change and applies it only when confirmed with the plan', async function () {
      const plan = body(
        await client.callTool({
          name: 'run_data_operation',
          arguments: {
            collection: 'articles',
            items: [{ data: { title: 'Bulk one' } }, { id: ids.draftArticle, data: { title: 'Bulk edit' } }],
          },
        }),
      );
      expect(plan.summary).to.include({ created: 1, updated: 1 });
      const system = createLocalClient(t.kernel);
      expect((await system.entries('articles').list({ search: 'Bulk one' })).total, 'a plan changes nothing').to.equal(0);
      const wrongHash = await client.callTool({ name: 'confirm_data_operation', arguments: { planId: plan.planId, planHash: 'nope' } });
      expect(isError(wrongHash)).to.equal(true);
      const applied = body(
        await client.callTool({ name: 'confirm_data_operation', arguments: { planId: plan.planId, planHash: plan.planHash } }),
      );
      expect(applied.outcome).to.equal('success');
      const bulk = (await system.entries('articles').list({ search: 'Bulk one' })).items[0]!;
      expect(bulk.status).to.equal('draft');
      ids.bulk = bulk._id;
      expect((await system.entries('articles').get(ids.draftArticle)).title).to.equal('Bulk edit');
    });

    it("audits every call with the key's name and the session", async function () {
      const audit = t.kernel.container.resolve<AuditLog>('audit');
      await audit.flush();
      const created = await audit.list({ action: 'mcp.create_entry', limit: 50 });
      expect(created.items.length).to.be.at.least(4);
      for (const e of created.items) expect(e.details).to.include({ keyName: 'claude-narrow', via: 'http' });
      expect(created.items.map((e) => e.outcome)).to.include.members(['success', 'failure']);
      const sessions = new Set(created.items.map((e) => e.details!.sessionId));
      expect(sessions.size, 'one MCP session').to.equal(1);
      expect((await audit.list({ action: 'mcp.describe_model' })).total).to.be.at.least(1);
      // Arguments the tool's schema refuses are answered by the SDK, and audited as well.
      const bad = await client.callTool({ name: 'read_entry', arguments: { collection: 'articles', id: 'not-a-uuid' } });
      expect(isError(bad)).to.equal(true);
      await audit.flush();
      const refused = await audit.list({ action: 'mcp.read_entry' });
      expect(refused.items[0]!.details).to.include({ keyName: 'claude-narrow', argumentsRefused: true, error: 'VALIDATION_ERROR' });
      expect(refused.items[0]!.outcome).to.equal('failure');
    });

    it("the admin lists the agent's session and reverts it: created entries deleted, changed ones restored", async function () {
      // An entry the agent created and someone else changed since: left as it is by the revert.
      const contested = body(
        await client.callTool({ name: 'create_entry', arguments: { collection: 'articles', data: { title: 'Contested' } } }),
      );
      await createLocalClient(t.kernel).entries('articles').update(contested._id, { title: 'Edited by a person' });
      const cookie = (await signInCookie(t, ADMIN.email, PASSWORD))!;
      const owner = (await signInCookie(t, OWNER.email, PASSWORD))!;
      expect((await t.request('/api/mcp/sessions', { headers: { cookie: owner } })).status, 'an editor may not').to.equal(403);
      const listed = (await (await t.request('/api/mcp/sessions', { headers: { cookie } })).json()).data;
      expect(listed.total).to.equal(1);
      const session = listed.items[0];
      expect(session).to.include({ keyName: 'claude-narrow', changes: 6, revertedAt: null });
      const detail = (await (await t.request(`/api/mcp/sessions/${session._id}`, { headers: { cookie } })).json()).data;
      expect(detail.changeList.map((c: { entryId: string }) => c.entryId)).to.have.members([
        ids.created,
        ids.smuggled,
        ids.draftArticle,
        ids.page,
        ids.bulk,
        contested._id,
      ]);
      const res = await t.request(`/api/mcp/sessions/${session._id}/revert`, { method: 'POST', headers: { cookie, origin: t.url } });
      expect(res.status).to.equal(200);
      expect((await res.json()).data).to.deep.include({
        reverted: 5,
        skipped: [{ collection: 'articles', entryId: contested._id, reason: 'changed by someone else since' }],
      });
      expect((await createLocalClient(t.kernel).entries('articles').get(contested._id)).title).to.equal('Edited by a person');
      const system = createLocalClient(t.kernel);
      const existing = await system.entries('articles').existing([ids.created!, ids.smuggled!, ids.bulk!, ids.draftArticle!]);
      expect([...existing]).to.deep.equal([ids.draftArticle]);
      expect((await system.entries('articles').get(ids.draftArticle)).title, 'its value before the session').to.equal('Before');
      const page = await system.entries('pages').get(ids.page);
      // Only its draft was changed: the published version is the one it was (no new version written).
      expect(page).to.include({ title: 'Live page', hasDraft: false, version: 1 });
      const again = await t.request(`/api/mcp/sessions/${session._id}/revert`, { method: 'POST', headers: { cookie, origin: t.url } });
      expect(again.status).to.equal(409);
      expect((await again.json()).error).to.equal('MCP_SESSION_REVERTED');
      // The agent's session is closed for writes after a revert.
      const late = await client.callTool({ name: 'create_entry', arguments: { collection: 'articles', data: { title: 'late' } } });
      expect(body(late).error).to.equal('CONFLICT');
    });
  });
}

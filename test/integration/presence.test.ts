import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { as, createCollections, dataOf, failureOf } from '../helpers/content.js';
import { useIdentityKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

// Issue 37, item 7 ("who is editing"): the entry page's heartbeats, the first tab that may write edits, the others
// read only until it leaves (or its heartbeat expires) or they take over; tenant-scoped, signed-in users only.
for (const variant of DB_VARIANTS) {
  describe(`presence: who is editing (${variant.name})`, function () {
    this.timeout(60000);
    const t = useIdentityKernel(variant, {
      seed: async () => createCollections(t, { name: 'posts', fields: [{ name: 'title', type: 'text' }] }),
    });
    const call = (method: string, path: string, opts: { role?: string; user?: string; tenant?: string; json?: unknown } = {}) =>
      t.request(path, {
        method,
        identity: opts.role ?? 'editor',
        headers: { ...(opts.user ? { 'x-test-user': opts.user } : {}), ...(opts.tenant ? { 'x-test-tenant': opts.tenant } : {}) },
        ...(opts.json !== undefined ? { json: opts.json } : {}),
      });
    const newPost = async () => (await dataOf(await as(t, 'editor').post('/api/collections/posts', { title: 'Draft' }), 201))._id as string;
    const beat = async (id: string, tab: string, user: string, role = 'editor') =>
      dataOf(await call('PUT', `/api/presence/posts/${id}`, { role, user, json: { tab } }));
    const age = (tab: string, ms: number) =>
      t.kernel.sequelize.query('UPDATE cms_presence SET last_seen = last_seen - ? WHERE tab = ?', {
        replacements: [ms, tab],
        type: QueryTypes.UPDATE,
      });

    it('the first tab that opens an entry edits it; a second person sees who edits and gets a read-only view', async function () {
      const id = await newPost();
      const first = await beat(id, 'tab-anna-1', 'anna');
      expect(first.youEdit).to.equal(true);
      expect(first.editor).to.include({ tab: 'tab-anna-1', userId: 'anna' });
      const second = await beat(id, 'tab-ben-01', 'ben');
      expect(second.youEdit).to.equal(false);
      expect(second.editor).to.include({ userId: 'anna' });
      expect(second.tabs.map((x: any) => [x.userId, x.editing, x.you])).to.deep.equal([
        ['anna', true, false],
        ['ben', false, true],
      ]);
      // Anna's next heartbeat shows Ben beside her; she still edits.
      const again = await beat(id, 'tab-anna-1', 'anna');
      expect(again.youEdit).to.equal(true);
      expect(again.tabs.map((x: any) => x.userId)).to.deep.equal(['anna', 'ben']);
      // The same user in a second tab is there twice and does not edit in both.
      const otherTab = await beat(id, 'tab-anna-2', 'anna');
      expect(otherTab.youEdit).to.equal(false);
      expect(otherTab.tabs).to.have.length(3);
    });

    it('leaving, or a heartbeat that stops, hands editing to the next tab that opened the entry', async function () {
      const id = await newPost();
      await beat(id, 'tab-anna-1', 'anna');
      await beat(id, 'tab-ben-01', 'ben');
      await beat(id, 'tab-carl-1', 'carl');
      await dataOf(await call('DELETE', `/api/presence/posts/${id}?tab=tab-anna-1`, { user: 'anna' }));
      expect((await beat(id, 'tab-ben-01', 'ben')).youEdit).to.equal(true);
      // Ben's tab closes without a word (a lost connection): after the time to live Carl edits.
      await age('tab-ben-01', 31_000);
      const carl = await beat(id, 'tab-carl-1', 'carl');
      expect(carl.youEdit).to.equal(true);
      expect(carl.tabs.map((x: any) => x.userId)).to.deep.equal(['carl']);
      // Ben comes back: he opens the entry again, behind Carl.
      expect((await beat(id, 'tab-ben-01', 'ben')).youEdit).to.equal(false);
    });

    it('a heartbeat of a tab that left, arriving after its leave, does not open the entry again', async function () {
      const id = await newPost();
      await beat(id, 'tab-anna-1', 'anna');
      await beat(id, 'tab-ben-01', 'ben');
      await dataOf(await call('DELETE', `/api/presence/posts/${id}?tab=tab-anna-1`, { user: 'anna' }));
      // Anna's last heartbeat was sent before the page closed and arrives after the leave.
      const late = await beat(id, 'tab-anna-1', 'anna');
      expect(late.youEdit).to.equal(false);
      const ben = await beat(id, 'tab-ben-01', 'ben');
      expect(ben.youEdit).to.equal(true);
      expect(ben.tabs.map((x: any) => x.userId)).to.deep.equal(['ben']);
      const takeOver = await call('POST', `/api/presence/posts/${id}/take-over`, { user: 'anna', json: { tab: 'tab-anna-1' } });
      expect((await failureOf(takeOver, 409)).error).to.equal('PRESENCE_NOT_PRESENT');
      // Once the time to live has passed, the left tab's row is like any expired one: a heartbeat opens the entry again.
      await age('tab-anna-1', 31_000);
      expect((await beat(id, 'tab-anna-1', 'anna')).tabs.map((x: any) => x.userId)).to.deep.equal(['ben', 'anna']);
    });

    it('a tab that leaves before its first heartbeat is recorded does not open the entry when that heartbeat lands', async function () {
      const id = await newPost();
      // The page closed while its first heartbeat was on its way: the leave arrives first.
      await dataOf(await call('DELETE', `/api/presence/posts/${id}?tab=tab-quick-1`, { user: 'anna' }));
      const late = await beat(id, 'tab-quick-1', 'anna');
      expect(late.youEdit).to.equal(false);
      expect(late.tabs).to.deep.equal([]);
      // Another editor opening it edits at once: the left tab is nobody.
      expect((await beat(id, 'tab-ben-02', 'ben')).youEdit).to.equal(true);
    });

    it('a reader never edits; a writer takes over and the previous editor turns read-only at its next heartbeat', async function () {
      const id = await newPost();
      await dataOf(await as(t, 'editor').patch(`/api/collections/posts/${id}/status`, { status: 'published' }));
      const reader = await beat(id, 'tab-viewer', 'vera', 'viewer');
      expect(reader.youEdit).to.equal(false);
      expect(reader.editor).to.equal(null);
      await beat(id, 'tab-anna-1', 'anna');
      await beat(id, 'tab-ben-01', 'ben');
      const took = await dataOf(await call('POST', `/api/presence/posts/${id}/take-over`, { user: 'ben', json: { tab: 'tab-ben-01' } }));
      expect(took.youEdit).to.equal(true);
      const anna = await beat(id, 'tab-anna-1', 'anna');
      expect(anna.youEdit).to.equal(false);
      expect(anna.editor).to.include({ userId: 'ben' });
      // A reader may not take over; a tab that has not opened the entry cannot either.
      expect(
        (await call('POST', `/api/presence/posts/${id}/take-over`, { role: 'viewer', user: 'vera', json: { tab: 'tab-viewer' } })).status,
      ).to.equal(403);
      const absent = await failureOf(
        await call('POST', `/api/presence/posts/${id}/take-over`, { user: 'dora', json: { tab: 'tab-dora-1' } }),
        409,
      );
      expect(absent.error).to.equal('PRESENCE_NOT_PRESENT');
      // GET answers the same view without a heartbeat.
      const seen = await dataOf(await call('GET', `/api/presence/posts/${id}?tab=tab-anna-1`, { user: 'anna' }));
      expect(seen.tabs.map((x: any) => x.userId)).to.deep.equal(['ben', 'vera', 'anna']);
    });

    it('keeps tenants apart, refuses guests and bad input with stable codes, and answers 404 for an entry the caller cannot see', async function () {
      const id = await newPost();
      await beat(id, 'tab-anna-1', 'anna');
      // Another tenant's admin: the entry is not in their tenant.
      const other = await call('PUT', `/api/presence/posts/${id}`, {
        role: 'admin',
        user: 'otto',
        tenant: 'other',
        json: { tab: 'tab-otto-1' },
      });
      expect(other.status).to.equal(404);
      const otherGet = await call('GET', `/api/presence/posts/${id}`, { role: 'admin', user: 'otto', tenant: 'other' });
      expect(otherGet.status).to.equal(404);
      expect(JSON.stringify(await otherGet.json())).to.not.contain('anna');
      // A guest has no entry open.
      const guest = await t.request(`/api/presence/posts/${id}`, { method: 'PUT', json: { tab: 'tab-guest-1' } });
      expect([401, 403]).to.include(guest.status);
      // Bad input.
      const bad = await failureOf(await call('PUT', `/api/presence/posts/${id}`, { user: 'anna', json: { tab: 'x' } }), 400);
      expect(bad.error).to.equal('VALIDATION_ERROR');
      expect(
        (await failureOf(await call('PUT', `/api/presence/posts/${id}`, { user: 'anna', json: { tab: 'tab-anna-1', extra: 1 } }), 400))
          .error,
      ).to.equal('VALIDATION_ERROR');
      const none = '00000000-0000-4000-8000-000000000000';
      expect(
        (await failureOf(await call('PUT', `/api/presence/posts/${none}`, { user: 'anna', json: { tab: 'tab-anna-1' } }), 404)).error,
      ).to.equal('ENTRY_NOT_FOUND');
      expect(
        (await failureOf(await call('PUT', `/api/presence/nothing-here/${none}`, { user: 'anna', json: { tab: 'tab-anna-1' } }), 404))
          .error,
      ).to.equal('COLLECTION_NOT_FOUND');
      // Nothing of the other tenant's attempts was recorded.
      const rows = await t.kernel.sequelize.query<{ tenant_id: string }>('SELECT tenant_id FROM cms_presence WHERE entry_id = ?', {
        replacements: [id],
        type: QueryTypes.SELECT,
      });
      expect(rows.map((r) => r.tenant_id)).to.deep.equal(['default']);
    });
  });
}

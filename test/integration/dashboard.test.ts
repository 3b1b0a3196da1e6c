import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { dataOf } from '../helpers/content.js';
import { commerceCollections, contentAdmin } from '../helpers/dashboard-fixtures.js';
import { fixturePlugin, responseCookie, startTestKernel, type TestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS, requireVariant } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const ENDPOINTS = [
  '/api/dashboard/stats',
  '/api/dashboard/health',
  '/api/dashboard/metrics',
  '/api/dashboard/system-info',
  '/api/dashboard/cache-metrics',
  '/api/dashboard/logs',
  '/api/dashboard/audit',
  '/api/dashboard/security',
  '/api/dashboard/scim',
  '/api/dashboard/system-messages',
  '/api/dashboard/last5-content',
  '/api/dashboard/last5media',
  '/api/dashboard/online-user',
  '/api/dashboard/commerce-orders',
  '/api/dashboard/commerce-inventory',
  '/api/dashboard/tenant-analytics',
  '/api/database/pool-diagnostics',
  '/api/dashboard/widgets',
  '/api/dashboard/layout',
];

for (const variant of DB_VARIANTS) {
  describe(`dashboard endpoints (${variant.name})`, function () {
    this.timeout(120000);
    let t: TestKernel;
    const get = (path: string, identity = 'viewer') => t.request(path, { identity });
    const users = () => t.kernel.container.resolve<{ create(i: object): Promise<{ _id: string }> }>('users');
    const audit = () => t.kernel.container.resolve<{ append(i: object): Promise<unknown> }>('audit');

    before(async function () {
      requireVariant(this, variant);
      t = await startTestKernel({
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } },
      });
      // Storage is measured (and then cached 30 s) on the first stats call: 3 MB of it is this file.
      writeFileSync(join(t.dataDir, 'measure.bin'), Buffer.alloc(3 * 1024 * 1024));
      // 105 audit entries: 60 low, 30 medium, 10 high, 5 critical; every 7th mentions "backup".
      const levels = [...Array(60).fill('low'), ...Array(30).fill('medium'), ...Array(10).fill('high'), ...Array(5).fill('critical')];
      for (const [i, level] of levels.entries()) {
        await audit().append({
          domain: 'config',
          operation: 'apply',
          actor: { userId: null, tenantId: 'default' },
          outcome: 'success',
          level,
          action: i % 7 === 0 ? 'backup.create' : 'config.apply',
          message: `entry ${i}`,
        });
      }
    });
    after(async () => t?.close());

    it('refuses every endpoint without identity (401) and without dashboard:read (403); a viewer is allowed', async function () {
      for (const path of ENDPOINTS) {
        const anonymous = await t.request(path);
        expect(anonymous.status, `${path} anonymous`).to.equal(401);
        expect((await anonymous.json()).error).to.equal('AUTHENTICATION_REQUIRED');
        const nobody = await get(path, 'nobody');
        expect(nobody.status, `${path} nobody`).to.equal(403);
        expect((await nobody.json()).error).to.equal('FORBIDDEN');
        // The layout needs a user row (404 for the header identity); everything else answers the viewer.
        if (path !== '/api/dashboard/layout') expect((await get(path)).status, `${path} viewer`).to.equal(200);
      }
    });

    it('stats counts real entries and users and measures the storage', async function () {
      const before = await dataOf(await get('/api/dashboard/stats', 'editor'));
      expect(before).to.include.keys(
        'contentCount',
        'userCount',
        'mediaCount',
        'storageUsed',
        'storageUsedBytes',
        'healthStatus',
        'uptime',
        'timestamp',
      );
      const content = contentAdmin(t);
      await content.collections.create({ name: 'notes', fields: [{ name: 'title', type: 'text', required: true }] });
      await content.entries('notes').createMany([{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
      await users().create({ email: 'stats-1@example.com', password: PASSWORD, role: 'editor' });
      const after = await dataOf(await get('/api/dashboard/stats', 'editor'));
      expect(after.contentCount).to.equal(before.contentCount + 3);
      expect(after.userCount).to.equal(before.userCount + 1);
      expect(after.mediaCount).to.be.a('number');
      expect(after.storageUsedBytes).to.be.at.least(3 * 1024 * 1024);
      expect(after.storageUsed).to.match(/^\d+(\.\d)? (MB|GB)$/);
      expect(after.healthStatus).to.equal('healthy');
      expect(after.uptime).to.be.a('number');
      expect(Date.parse(after.timestamp)).to.be.closeTo(Date.now(), 60000);
    });

    it('system-info reads the operating system and honours type', async function () {
      const all = await dataOf(await get('/api/dashboard/system-info'));
      expect(all).to.have.keys('osInfo', 'cpuInfo', 'memoryInfo', 'diskInfo');
      expect(all.osInfo).to.include({ platform: process.platform, arch: process.arch });
      expect(all.cpuInfo.cores).to.equal(cpus().length);
      expect(all.memoryInfo.total).to.be.greaterThan(all.memoryInfo.free);
      expect(all.diskInfo.root.totalGb).to.be.greaterThan(0);
      expect(all.diskInfo.root.usedGb).to.be.at.most(all.diskInfo.root.totalGb);
      const cpu = await dataOf(await get('/api/dashboard/system-info?type=cpu'));
      expect(cpu).to.have.keys('cpuInfo');
      expect(await dataOf(await get('/api/dashboard/system-info?type=disk'))).to.have.keys('diskInfo');
      const bad = await get('/api/dashboard/system-info?type=gpu');
      expect(bad.status).to.equal(400);
      expect((await bad.json()).error).to.equal('VALIDATION_ERROR');
    });

    it('metrics counts API hits and errors per route; detailed=true adds memory, uptime and runtime', async function () {
      const first = await dataOf(await get('/api/dashboard/metrics'));
      await get('/api/dashboard/health');
      await get('/api/dashboard/health', 'nobody');
      const second = await dataOf(await get('/api/dashboard/metrics'));
      expect(second.apiHits).to.be.at.least(first.apiHits + 3);
      const health = second.routes.find((r: any) => r.route === '/api/dashboard/health');
      expect(health.hits).to.be.at.least(2);
      expect(health.errorRate).to.be.greaterThan(0);
      expect(second).to.include.keys('errorRate', 'cache', 'status');
      expect(second).to.not.have.property('memory');
      const detailed = await dataOf(await get('/api/dashboard/metrics?detailed=true'));
      expect(detailed.memory.heapUsed).to.be.greaterThan(0);
      expect(detailed.uptime).to.be.a('number');
      expect(detailed.runtime.version).to.equal(process.version);
    });

    it('cache-metrics has the spec shape from the kernel counters', async function () {
      const body = await dataOf(await get('/api/dashboard/cache-metrics'));
      expect(body).to.include.keys('overall', 'byCategory', 'byTenant', 'timestamp');
      expect(body.overall).to.include.keys('hits', 'misses', 'hitRate', 'sets', 'deletes', 'size', 'totalOperations');
      expect(body.timestamp).to.be.a('number');
    });

    it('logs pages the audit log, filters by level and text, and caps limit at 100', async function () {
      const page1 = await dataOf(await get('/api/dashboard/logs?limit=10&page=1'));
      const page2 = await dataOf(await get('/api/dashboard/logs?limit=10&page=2'));
      expect(page1.total).to.equal(105);
      expect(page1.items).to.have.length(10);
      expect(page1.totalPages).to.equal(11);
      expect(page1.items[0].message).to.equal('entry 104');
      expect(page2.items[0].message).to.equal('entry 94');
      const capped = await dataOf(await get('/api/dashboard/logs?limit=1000'));
      expect(capped.limit).to.equal(100);
      expect(capped.items).to.have.length(100);
      const critical = await dataOf(await get('/api/dashboard/logs?level=critical'));
      expect(critical.total).to.equal(5);
      expect(critical.items.every((i: any) => i.level === 'critical')).to.equal(true);
      const search = await dataOf(await get('/api/dashboard/logs?search=backup&limit=100'));
      expect(search.total).to.equal(15);
      expect((await get('/api/dashboard/logs?level=urgent')).status).to.equal(400);
      expect((await get('/api/dashboard/logs?limit=0')).status).to.equal(400);
      expect((await get('/api/dashboard/logs?page=0')).status).to.equal(400);
    });

    it('audit is a flat array of recent events, capped at 100', async function () {
      const five = await dataOf(await get('/api/dashboard/audit?limit=5'));
      expect(five).to.be.an('array').with.length(5);
      expect(five.map((e: any) => e.message)).to.deep.equal(['entry 104', 'entry 103', 'entry 102', 'entry 101', 'entry 100']);
      expect(await dataOf(await get('/api/dashboard/audit?limit=500'))).to.have.length(100);
    });

    it('system-messages defaults to 10, most severe first, with counts by severity', async function () {
      const body = await dataOf(await get('/api/dashboard/system-messages'));
      expect(body.messages).to.have.length(10);
      expect(body.messages.slice(0, 5).every((m: any) => m.severity === 'critical')).to.equal(true);
      expect(body.messages[5].severity).to.equal('high');
      expect(body.bySeverity).to.deep.equal({ low: 60, medium: 30, high: 10, critical: 5 });
      expect(await dataOf(await get('/api/dashboard/system-messages?limit=3'))).to.have.nested.property('messages.length', 3);
    });

    it('security summarises lockouts, failed sign-ins and failed 2FA verifications', async function () {
      const before = await dataOf(await get('/api/dashboard/security'));
      await users().create({ email: 'locked@example.com', password: PASSWORD, role: 'editor' });
      for (let i = 0; i < 5; i++)
        await t.request('/api/user/login', { method: 'POST', json: { email: 'locked@example.com', password: 'wrong password!' } });
      const twoFactor = await t.request('/api/auth/2fa/verify', { method: 'POST', json: { userId: 'someone', code: '123456' } });
      expect((await twoFactor.json()).success).to.equal(false);
      const after = await dataOf(await get('/api/dashboard/security'));
      expect(after.lockedAccounts).to.equal(before.lockedAccounts + 1);
      expect(after.failedLoginAttempts).to.be.at.least(before.failedLoginAttempts + 5);
      expect(after.failedTwoFactor).to.equal(before.failedTwoFactor + 1);
      expect(after.highSeverityEvents).to.equal(15);
      expect(after.activeThreats.map((x: any) => x.type)).to.include.members(['account-lockout', 'failed-2fa', 'critical-audit-events']);
      expect(after.threatLevel).to.equal('critical');
    });

    it("scim derives provisioning health from the tenant's users", async function () {
      const body = await dataOf(await get('/api/dashboard/scim'));
      expect(body.totalUsers).to.be.at.least(2);
      expect(body.lockedUsers).to.be.at.least(1);
      expect(body.status).to.be.oneOf(['healthy', 'degraded']);
      expect(body.byRole.editor).to.be.at.least(2);
    });

    it('last5-content lists the newest updated entries across collections: default 5, capped at 50', async function () {
      const content = contentAdmin(t);
      await content.collections.create({ name: 'pages', fields: [{ name: 'title', type: 'text', required: true }] });
      await content.entries('pages').createMany(Array.from({ length: 60 }, (_, i) => ({ title: `page ${i}` })));
      await new Promise((r) => setTimeout(r, 20));
      await content.entries('notes').create({ title: 'newest note' });
      const five = await dataOf(await get('/api/dashboard/last5-content', 'editor'));
      expect(five).to.have.length(5);
      expect(five[0]).to.include({ collection: 'notes', title: 'newest note' });
      expect(five[0]).to.include.keys('id', 'status', 'createdAt', 'updatedAt');
      for (let i = 1; i < five.length; i++) expect(Date.parse(five[i - 1].updatedAt)).to.be.at.least(Date.parse(five[i].updatedAt));
      expect(await dataOf(await get('/api/dashboard/last5-content?limit=200', 'editor'))).to.have.length(50);
    });

    it('viewers and their website tokens see no draft through the dashboard: no title, no id, no count', async function () {
      const content = contentAdmin(t);
      await content.collections.create({ name: 'memos', fields: [{ name: 'title', type: 'text', required: true }] });
      const published = (await content.entries('memos').create({ title: 'Public memo', status: 'published' })) as { _id: string };
      await new Promise((r) => setTimeout(r, 20));
      const draft = (await content.entries('memos').create({ title: 'Secret draft memo' })) as { _id: string };
      await users().create({ email: 'dash-viewer@example.com', password: PASSWORD, role: 'viewer' });
      const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'dash-viewer@example.com', password: PASSWORD } });
      const cookie = responseCookie(login)!;
      expect(cookie).to.be.a('string');
      const token = (
        await dataOf(await t.request('/api/website-tokens', { method: 'POST', json: { name: 'site' }, headers: { cookie } }), 201)
      ).token;
      const callers: Array<[string, RequestInit & { identity?: string }]> = [
        ['viewer (header identity)', { identity: 'viewer' }],
        ['viewer (session)', { headers: { cookie } }],
        ["the viewer's website token", { headers: { authorization: `Bearer ${token}` } }],
      ];
      for (const [who, init] of callers) {
        const latest = await dataOf(await t.request('/api/dashboard/last5-content?limit=50', init));
        const text = JSON.stringify(latest);
        expect(text, who).to.not.include('Secret draft memo');
        expect(text, who).to.not.include(draft._id);
        expect(
          latest.map((e: { id: string }) => e.id),
          who,
        ).to.include(published._id);
        expect(
          latest.every((e: { status: string }) => e.status === 'published'),
          who,
        ).to.equal(true);
        const analytics = await dataOf(await t.request('/api/dashboard/tenant-analytics', init));
        expect(analytics.content.byCollection.memos, who).to.equal(1);
      }
      // Another tenant's admin sees none of this tenant's entries.
      const foreign = await dataOf(
        await t.request('/api/dashboard/last5-content?limit=50', { identity: 'admin', headers: { 'x-test-tenant': 'other' } }),
      );
      expect(JSON.stringify(foreign)).to.not.include('memo');
      // Callers who may write see the draft (they read it through the content API too).
      const editor = await dataOf(await get('/api/dashboard/last5-content', 'editor'));
      expect(editor[0]).to.include({ id: draft._id, title: 'Secret draft memo', status: 'draft' });
      expect((await dataOf(await get('/api/dashboard/tenant-analytics', 'editor'))).content.byCollection.memos).to.equal(2);
    });

    it('last5media answers an array (empty without media)', async function () {
      expect(await dataOf(await get('/api/dashboard/last5media'))).to.be.an('array');
    });

    it('online-user lists users with active sessions and their duration', async function () {
      await users().create({ email: 'online@example.com', password: PASSWORD, role: 'editor', username: 'online' });
      const login = await t.request('/api/user/login', { method: 'POST', json: { email: 'online@example.com', password: PASSWORD } });
      expect(responseCookie(login)).to.be.a('string');
      const body = await dataOf(await get('/api/dashboard/online-user'));
      const me = body.users.find((u: any) => u.email === 'online@example.com');
      expect(me).to.include({ username: 'online', role: 'editor', sessions: 1 });
      expect(me.durationSeconds).to.be.within(0, 60);
      expect(body.count).to.equal(body.users.length);
    });

    it("tenant-analytics gives the tenant's users, entries per collection and online users", async function () {
      const body = await dataOf(await get('/api/dashboard/tenant-analytics', 'editor'));
      expect(body.tenantId).to.equal('default');
      expect(body.content.byCollection).to.include({ notes: 4, pages: 60 });
      expect(body.users.total).to.be.at.least(3);
      expect(body.online.users).to.be.at.least(1);
      const other = await dataOf(
        await t.request('/api/dashboard/tenant-analytics', { identity: 'viewer', headers: { 'x-test-tenant': 'other' } }),
      );
      expect(other.content.entries).to.equal(0);
      expect(other.users.total).to.equal(0);
    });

    it('commerce widgets answer {available:false} without the preset, then real figures', async function () {
      expect(await dataOf(await get('/api/dashboard/commerce-orders'))).to.deep.equal({ available: false });
      expect(await dataOf(await get('/api/dashboard/commerce-inventory'))).to.deep.equal({ available: false });
      await commerceCollections(t);
      const content = contentAdmin(t);
      const statuses = ['paid', 'paid', 'shipped', 'pending'];
      // 25 orders, oldest first: the 20 newest are orders 5..24.
      for (let i = 0; i < 25; i++) {
        await content.entries('orders').create({
          orderNumber: `A-${i}`,
          customerEmail: `c${i}@example.com`,
          total: 10 + i,
          orderStatus: i < 5 ? 'cancelled' : statuses[i % 4],
        });
      }
      const orders = await dataOf(await get('/api/dashboard/commerce-orders', 'editor'));
      expect(orders.available).to.equal(true);
      expect(orders.total).to.equal(25);
      expect(Object.values(orders.byStatus).reduce((a: number, b) => a + (b as number), 0)).to.equal(20);
      expect(orders.byStatus).to.not.have.property('cancelled');
      expect(orders.recent).to.have.length(5);
      expect(orders.recent[0]).to.include({ orderNumber: 'A-24', total: 34, customerEmail: 'c24@example.com' });
      expect(orders.recent[0]).to.include.keys('id', 'status', 'createdAt');
      expect((await dataOf(await get('/api/dashboard/commerce-orders?limit=500', 'editor'))).recent).to.have.length(25);

      await content.entries('products').createMany([
        { title: 'Empty', sku: 'E', price: 1, stock: 0 },
        { title: 'Two left', sku: 'T', price: 1, stock: 2 },
        { title: 'Plenty', sku: 'P', price: 1, stock: 100 },
        { title: 'Own threshold', sku: 'O', price: 1, stock: 15, lowStockThreshold: 20 },
        { title: 'Inactive', sku: 'I', price: 1, stock: 0, active: false },
      ]);
      const stock = await dataOf(await get('/api/dashboard/commerce-inventory', 'editor'));
      expect(stock).to.include({ available: true, tracked: 4, outOfStock: 1 });
      expect(stock.lowStock.map((p: any) => [p.title, p.qty, p.threshold])).to.deep.equal([
        ['Empty', 0, 5],
        ['Two left', 2, 5],
        ['Own threshold', 15, 20],
      ]);
      expect((await dataOf(await get('/api/dashboard/commerce-inventory?limit=1', 'editor'))).lowStock).to.have.length(1);
    });

    it('pool-diagnostics reports the dialect, the pool figures it has and a latency', async function () {
      const body = await dataOf(await get('/api/database/pool-diagnostics'));
      expect(body.dialect).to.equal(variant.name === 'sqlite' ? 'sqlite' : 'mariadb');
      expect(body.reachable).to.equal(true);
      expect(body.latencyMs).to.be.a('number');
      expect(body.status).to.be.oneOf(['ok', 'saturated']);
      if (body.pool) expect(body.pool).to.include.keys('size', 'available', 'using', 'waiting', 'max');
      if (variant.name === 'mariadb') expect(body.pool.max).to.be.greaterThan(0);
    });
  });
}

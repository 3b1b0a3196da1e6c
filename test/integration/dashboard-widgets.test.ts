import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWidgetFolders } from '../../plugins/dashboard/widget-manifest.js';
import { DIST_ROOT } from '../../kernel/version.js';
import { dataOf } from '../helpers/content.js';
import { fixturePlugin, responseCookie, startTestKernel, tempDir, useTestKernel } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { DB_VARIANTS } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const WIDGET_IDS = [
  'activity',
  'audit-log',
  'cache-monitor',
  'commerce-inventory',
  'commerce-orders',
  'content-media-activity',
  'cpu',
  'database-pool-diagnostics',
  'disk',
  'last5-content',
  'last5-media',
  'logs',
  'media-storage-analytics',
  'memory',
  'scim-status',
  'security',
  'storage-usage',
  'system-health',
  'system-messages',
  'tenant-analytics',
  'unified-metrics',
  'user-online',
];
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe('widget folders', function () {
  it('every shipped widget folder validates, defines its custom element and has a README', function () {
    const dir = join(DIST_ROOT, 'widgets');
    const widgets = loadWidgetFolders(dir);
    expect(widgets.map((w) => w.id)).to.deep.equal(WIDGET_IDS);
    for (const w of widgets) {
      expect(readFileSync(join(dir, w.id, w.component), 'utf8')).to.match(new RegExp(`defineWidget\\(\\{\\s*tag: 'cms-widget-${w.id}'`));
      expect(existsSync(join(process.cwd(), 'widgets', w.id, 'README.md')), `${w.id} README`).to.equal(true);
    }
    expect(widgets.filter((w) => w.license === 'paid').map((w) => w.id)).to.deep.equal(['scim-status']);
  });

  it('a bad widget.json stops the load naming the file and the problem', function () {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['bad-license', { license: 'premium' }, 'license'],
      ['other-id', { id: 'not-the-folder' }, 'must equal the folder name'],
      ['no-size', { defaultSize: undefined }, 'defaultSize'],
      ['bad-category', { category: 'games' }, 'category'],
    ];
    for (const [folder, change, message] of cases) {
      const root = tempDir('widgets-');
      mkdirSync(join(root, folder));
      const manifest = {
        id: folder,
        name: 'W',
        description: 'd',
        icon: 'i',
        version: '1.0.0',
        license: 'freemium',
        component: 'component.js',
        defaultSize: { w: 2, h: 2 },
        category: 'static',
        endpoint: '/api/dashboard/health',
        permission: 'dashboard:read',
        ...change,
      };
      writeFileSync(join(root, folder, 'widget.json'), JSON.stringify(manifest));
      writeFileSync(join(root, folder, 'component.js'), '');
      expect(() => loadWidgetFolders(root), folder)
        .to.throw(join(root, folder, 'widget.json'))
        .with.property('message')
        .that.includes(message);
    }
    const missing = tempDir('widgets-');
    mkdirSync(join(missing, 'x'));
    expect(() => loadWidgetFolders(missing)).to.throw('has no widget.json');
    expect(readdirSync(missing)).to.deep.equal(['x']);
  });
});

for (const variant of DB_VARIANTS) {
  describe(`dashboard widgets, layouts and /metrics (${variant.name})`, function () {
    this.timeout(120000);
    let session: string;
    const t = useTestKernel(
      {
        db: variant.name,
        plugins: [fixturePlugin('test-identity')],
        config: { plugins: { options: { auth: { bcryptRounds: 4 }, dashboard: { metricsToken: METRICS_TOKEN } } } },
      },
      {
        variant,
        seed: async () => {
          await createUsers(t, { email: 'layout@example.com', password: PASSWORD, role: 'viewer' });
          session = responseCookie(
            await t.request('/api/user/login', { method: 'POST', json: { email: 'layout@example.com', password: PASSWORD } }),
          )!;
          expect(session).to.be.a('string');
        },
      },
    );

    it('GET /api/dashboard/widgets lists every widget with its manifest fields, licence state and access', async function () {
      const list = await dataOf(await t.request('/api/dashboard/widgets', { identity: 'viewer' }));
      expect(list.map((w: any) => w.id)).to.deep.equal(WIDGET_IDS);
      const cpu = list.find((w: any) => w.id === 'cpu');
      expect(cpu).to.include({
        license: 'freemium',
        category: 'monitoring',
        endpoint: '/api/dashboard/system-info?type=cpu',
        icon: 'cpu',
        version: '1.0.0',
        canRead: true,
      });
      expect(cpu.defaultSize).to.deep.equal({ w: 3, h: 2 });
      expect(cpu.licenseState).to.include({ allowed: true, reason: 'freemium' });
      expect(list.find((w: any) => w.id === 'scim-status').licenseState).to.include({ license: 'paid', reason: 'trial' });
      // The media widget's data belongs to the media plugin (media:read, which viewers have).
      expect(list.find((w: any) => w.id === 'media-storage-analytics')).to.include({ permission: 'media:read', canRead: true });
    });

    it("a user's layout is empty at first, saved in their preferences and read back", async function () {
      const headers = { cookie: session };
      expect(await dataOf(await t.request('/api/dashboard/layout', { headers }))).to.deep.equal({ widgets: [], updatedAt: null });
      const layout = {
        widgets: [
          { id: 'cpu', x: 0, y: 0, w: 3, h: 2 },
          { id: 'logs', x: 3, y: 0, w: 8, h: 4 },
        ],
      };
      const saved = await dataOf(await t.request('/api/dashboard/layout', { method: 'PUT', headers, json: layout }));
      expect(saved.widgets).to.deep.equal(layout.widgets);
      const read = await dataOf(await t.request('/api/dashboard/layout', { headers }));
      expect(read.widgets).to.deep.equal(layout.widgets);
      expect(read.updatedAt).to.equal(saved.updatedAt);
      const users = t.kernel.container.resolve<{ findByEmail(e: string, t: string): Promise<{ preferences: string }> }>('users');
      expect(JSON.parse((await users.findByEmail('layout@example.com', 'default')).preferences).dashboard.widgets).to.deep.equal(
        layout.widgets,
      );
    });

    it('a layout with unknown or repeated widgets, or bad sizes, is refused with 400 and leaves the saved one', async function () {
      const headers = { cookie: session };
      const before = await dataOf(await t.request('/api/dashboard/layout', { headers }));
      for (const widgets of [
        [{ id: 'no-such-widget', x: 0, y: 0, w: 2, h: 2 }],
        [
          { id: 'cpu', x: 0, y: 0, w: 2, h: 2 },
          { id: 'cpu', x: 2, y: 0, w: 2, h: 2 },
        ],
        [{ id: 'cpu', x: 0, y: 0, w: 0, h: 2 }],
        [{ id: 'cpu', x: -1, y: 0, w: 2, h: 2 }],
      ]) {
        const res = await t.request('/api/dashboard/layout', { method: 'PUT', headers, json: { widgets } });
        expect(res.status, JSON.stringify(widgets)).to.equal(400);
        expect((await res.json()).error).to.equal('VALIDATION_ERROR');
      }
      expect(await dataOf(await t.request('/api/dashboard/layout', { headers }))).to.deep.equal(before);
      expect((await t.request('/api/dashboard/layout', { method: 'PUT', json: { widgets: [] } })).status).to.equal(401);
      expect((await t.request('/api/dashboard/layout', { identity: 'nobody' })).status).to.equal(403);
    });

    it('/metrics needs the bearer token and answers the Prometheus text format from the same counters', async function () {
      expect((await t.request('/metrics')).status).to.equal(401);
      expect((await t.request('/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).to.equal(401);
      await t.request('/api/dashboard/health', { identity: 'viewer' });
      const res = await t.request('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.include('text/plain');
      const text = await res.text();
      expect(text).to.match(/cms_http_requests_total\{method="GET",route="\/api\/dashboard\/health",status="2xx"\} [1-9]/);
      expect(text).to.include('cms_process_cpu_user_seconds_total');
      expect(text).to.match(/cms_users\{state="total"\} 1/);
      expect(text).to.match(/cms_sessions_active\{kind="users"\} 1/);
      expect(text).to.include('cms_cache_hit_ratio');
      expect(text).to.not.include(METRICS_TOKEN);
    });

    it('/metrics is unknown (404) when no token is configured', async function () {
      const plain = await startTestKernel({ db: variant.name, dbUrl: t.dbUrl, dataDir: t.dataDir });
      try {
        const res = await plain.request('/metrics');
        expect(res.status).to.equal(404);
        expect((await res.json()).error).to.equal('NOT_FOUND');
      } finally {
        await plain.close();
      }
    });
  });
}

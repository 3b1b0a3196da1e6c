import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { as, dataOf } from '../helpers/content.js';
import { fixturePlugin, responseCookie, startTestKernel, tempDir, type TestKernel, useTestKernel } from '../helpers/kernel.js';
import { createUsers } from '../helpers/users.js';
import { imageBytes, uploadFile } from '../helpers/media-upload.js';
import { createMariaDbDatabase, DB_VARIANTS, MARIADB_URL, requireVariant } from '../helpers/services.js';

const PASSWORD = 'correct horse battery';
const ACTIVITY = 'api-requests,api-errors,api-client-errors';
const CONTENT = 'entries-created,media-uploaded,sign-ins,sign-in-failures';
const options = { plugins: { options: { auth: { bcryptRounds: 4, sessionDevicePolicy: 'allow-multiple' } } } };
const plugins = [fixturePlugin('test-identity'), fixturePlugin('test-echo')];

type Series = { name: string; label: string; unit: string; kind: string; bucketSeconds: number; points: Array<[number, number | null]> };
const totals = (series: Series[]) => Object.fromEntries(series.map((s) => [s.name, s.points.reduce((n, [, v]) => n + (v ?? 0), 0)]));

async function timeseries(
  t: TestKernel,
  series: string,
  range = '1h',
  tenant?: string,
): Promise<{ range: string; series: Series[]; retention: object }> {
  return dataOf(await as(t, 'viewer', tenant).get(`/api/dashboard/timeseries?series=${series}&range=${range}`));
}

async function createEntries(t: TestKernel, n: number, collection = 'tsnotes', tenant?: string): Promise<void> {
  const admin = as(t, 'admin', tenant);
  if ((await admin.get(`/api/collections/${collection}`)).status === 404)
    await dataOf(await admin.post('/api/collections', { name: collection, fields: [{ name: 'title', type: 'text' }] }), 201);
  for (let i = 0; i < n; i++) await dataOf(await admin.post(`/api/collections/${collection}`, { title: `Note ${i}` }), 201);
}

for (const variant of DB_VARIANTS) {
  describe(`dashboard figures over time: GET /api/dashboard/timeseries (${variant.name})`, function () {
    this.timeout(120000);

    const t = useTestKernel(
      { db: variant.name, plugins, config: options },
      {
        variant,
        seed: async () => {
          await createUsers(t, { email: 'ada@example.com', password: PASSWORD, role: 'admin', username: 'Ada' });
        },
      },
    );

    it('counts API requests, 4xx and 5xx answers per minute, including what is not flushed yet', async function () {
      const first = await timeseries(t, ACTIVITY);
      expect(first.range).to.equal('1h');
      expect(first.series.map((s) => s.name)).to.deep.equal(['api-requests', 'api-errors', 'api-client-errors']);
      for (const s of first.series) {
        expect(s.bucketSeconds).to.equal(60);
        expect(s.points).to.have.length(60);
        expect(
          s.points.every(([, v]) => typeof v === 'number'),
          'empty minutes are 0',
        ).to.equal(true);
      }
      expect(first.series[0]).to.include({ label: 'API requests', unit: 'requests', kind: 'counter' });
      expect(first.retention).to.deep.equal({
        minuteBucketsSeconds: 48 * 3600,
        hourBucketsSeconds: 35 * 86400,
        dayBucketsSeconds: 400 * 86400,
      });

      for (let i = 0; i < 3; i++) await dataOf(await as(t, 'viewer').get('/api/dashboard/health'));
      expect((await as(t, 'admin').get('/api/collections/no-such-collection')).status).to.equal(404);
      expect((await t.request('/api/open/probe?fail=yes')).status).to.equal(500);
      expect((await t.request('/admin/')).status, 'not an API request').to.be.below(500);

      const before = totals(first.series);
      const after = totals((await timeseries(t, ACTIVITY)).series);
      // The first timeseries call itself, 3 health reads, the 404 and the 500.
      expect(after['api-requests']! - before['api-requests']!).to.equal(6);
      expect(after['api-client-errors']! - before['api-client-errors']!).to.equal(1);
      expect(after['api-errors']! - before['api-errors']!).to.equal(1);
    });

    it('counts sign-ins and failed sign-ins per hour, entries and media per tenant', async function () {
      const start = totals((await timeseries(t, CONTENT, '24h')).series);
      const ok = await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: PASSWORD } });
      expect(ok.status).to.equal(200);
      expect(responseCookie(ok)).to.be.a('string');
      const wrong = await t.request('/api/user/login', { method: 'POST', json: { email: 'ada@example.com', password: 'wrong password!' } });
      expect(wrong.status).to.equal(401);
      await createEntries(t, 2);
      await createEntries(t, 1, 'tsother', 'tenant-b');
      expect((await uploadFile(t, await imageBytes(8, 8), 'dot.png', { identity: 'admin' })).status).to.equal(201);

      const day = await timeseries(t, CONTENT, '24h');
      for (const s of day.series) expect(s.bucketSeconds, s.name).to.equal(3600);
      const now = totals(day.series);
      expect(now['sign-ins']! - start['sign-ins']!).to.equal(1);
      expect(now['sign-in-failures']! - start['sign-in-failures']!).to.equal(1);
      expect(now['entries-created']! - start['entries-created']!).to.equal(2, 'tenant-b entries are not the default tenant’s');
      expect(now['media-uploaded']! - start['media-uploaded']!).to.equal(1);
      expect(totals((await timeseries(t, 'entries-created', '24h', 'tenant-b')).series)['entries-created']).to.equal(1);

      const month = await timeseries(t, CONTENT, '30d');
      expect(month.series[0]!.bucketSeconds).to.equal(86400);
      expect(month.series[0]!.points).to.have.length(30);
      expect(totals(month.series)['entries-created']).to.equal(now['entries-created']);
    });

    it('reports storage levels: the database size sampled at start, gaps as null', async function () {
      const { series } = await timeseries(t, 'media-bytes,database-bytes', '24h');
      const [media, database] = series;
      expect(media).to.include({ kind: 'gauge', unit: 'bytes', bucketSeconds: 3600 });
      expect(database!.points.at(-1)![1]).to.be.a('number').above(0);
      expect(media!.points.at(-1)![1]).to.be.a('number');
      expect(database!.points[0]![1], 'no sample a day ago').to.equal(null);
    });

    it('refuses unknown series and ranges with 400 VALIDATION_ERROR, and callers without dashboard:read', async function () {
      for (const query of ['series=api-requests&range=2d', 'series=no-such-series', 'series=api-requests,nope', 'range=1h', 'series=']) {
        const res = await as(t, 'viewer').get(`/api/dashboard/timeseries?${query}`);
        const body = await res.json();
        expect(res.status, query).to.equal(400);
        expect(body).to.include({ success: false, error: 'VALIDATION_ERROR' });
        expect(body.message).to.be.a('string');
      }
      const unknown = await (await as(t, 'viewer').get('/api/dashboard/timeseries?series=api-requests,nope')).json();
      expect(unknown.message).to.contain("'nope'").and.to.contain('api-requests, api-errors');
      expect((await t.request('/api/dashboard/timeseries?series=api-requests')).status).to.equal(401);
      expect((await as(t, 'nobody').get('/api/dashboard/timeseries?series=api-requests')).status).to.equal(403);
    });

    it('is in the OpenAPI document with its query schema, and its widgets are listed', async function () {
      const doc = await (await t.request('/api/openapi.json')).json();
      const op = doc.paths['/api/dashboard/timeseries'].get;
      expect(op.parameters.map((p: { name: string }) => p.name).sort()).to.deep.equal(['range', 'series']);
      const widgets = (await dataOf(await as(t, 'viewer').get('/api/dashboard/widgets'))) as Array<{ id: string; endpoint: string }>;
      const activity = widgets.find((w) => w.id === 'activity');
      expect(activity?.endpoint).to.equal(`/api/dashboard/timeseries?series=${ACTIVITY}&range=1h`);
      expect(widgets.map((w) => w.id)).to.include.members(['content-media-activity', 'storage-usage']);
    });
  });
}

describe('dashboard figures over time: flushed at shutdown, read back by the next start (sqlite)', function () {
  this.timeout(120000);
  const dataDir = tempDir('cms-ts-');
  it('a restarted kernel shows the figures of the one before', async function () {
    const first = await startTestKernel({ db: 'sqlite', dataDir, plugins, config: options });
    let counted: number;
    try {
      await createEntries(first, 3);
      counted = totals((await timeseries(first, 'entries-created', '24h')).series)['entries-created']!;
      expect(counted).to.equal(3);
    } finally {
      await first.kernel.close();
    }
    const second = await startTestKernel({ db: 'sqlite', dataDir, plugins, config: options });
    try {
      expect(totals((await timeseries(second, 'entries-created', '24h')).series)['entries-created']).to.equal(3);
    } finally {
      await second.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('dashboard figures over time: two kernels on one MariaDB add up (mariadb)', function () {
  this.timeout(120000);
  let db: { url: string; drop(): Promise<void> } | undefined;
  before(async function () {
    requireVariant(this, { available: Boolean(MARIADB_URL), skipReason: 'CMS_TEST_MARIADB_URL is not set: MariaDB variant skipped' });
    db = await createMariaDbDatabase();
  });
  after(async () => db?.drop());

  it('each instance adds its own counts to the shared buckets; a reader sees the stored sum plus its own unflushed counts', async function () {
    const a = await startTestKernel({ db: 'mariadb', dbUrl: db!.url, plugins, config: options });
    try {
      await createEntries(a, 2);
    } finally {
      await a.close(); // flushes A's counts
    }
    const b = await startTestKernel({ db: 'mariadb', dbUrl: db!.url, plugins, config: options });
    try {
      await createEntries(b, 3);
      // A's 2 from the database, B's 3 still in B's memory.
      expect(totals((await timeseries(b, 'entries-created', '24h')).series)['entries-created']).to.equal(5);
    } finally {
      await b.close();
    }
    const c = await startTestKernel({ db: 'mariadb', dbUrl: db!.url, plugins, config: options });
    try {
      expect(totals((await timeseries(c, 'entries-created', '7d')).series)['entries-created'], 'both flushes added up').to.equal(5);
    } finally {
      await c.close();
    }
  });
});

import { strict as assert } from 'node:assert';
import { DASHBOARD_MIGRATIONS } from '../../plugins/dashboard/migrations.js';
import { MetricPointStore } from '../../plugins/dashboard/metric-point-store.js';
import { TimeSeriesRecorder } from '../../plugins/dashboard/time-series-recorder.js';
import {
  DAY,
  HOUR,
  MINUTE,
  mergePoints,
  PendingBuckets,
  plan,
  rangeBuckets,
  retentionCutoffs,
  SERIES_BY_NAME,
  toDisplayPoints,
} from '../../plugins/dashboard/time-series.js';
import { openUnitDb, type UnitDb } from '../helpers/unit-db.js';

const def = (name: string) => SERIES_BY_NAME.get(name)!;
/** 2025-03-04 10:17:30 UTC, in seconds. */
const T0 = Date.UTC(2025, 2, 4, 10, 17, 30) / 1000;
const total = (points: Array<[number, number | null]>) => points.reduce((n, [, v]) => n + (v ?? 0), 0);

describe('unit: dashboard figures over time (buckets, merging, retention)', () => {
  it('reads each range from the finest stored bucket that still holds it, never finer than the series keeps', () => {
    assert.deepEqual(plan(def('api-requests'), '1h'), { bucketSeconds: MINUTE, resolution: MINUTE });
    assert.deepEqual(plan(def('api-requests'), '24h'), { bucketSeconds: 15 * MINUTE, resolution: MINUTE });
    assert.deepEqual(plan(def('api-requests'), '7d'), { bucketSeconds: HOUR, resolution: HOUR }, 'minute buckets are kept 48 h only');
    assert.deepEqual(plan(def('api-requests'), '30d'), { bucketSeconds: DAY, resolution: DAY });
    assert.deepEqual(plan(def('sign-ins'), '1h'), { bucketSeconds: HOUR, resolution: HOUR }, 'sign-ins are kept per hour');
    assert.deepEqual(plan(def('entries-created'), '30d'), { bucketSeconds: DAY, resolution: DAY });
    assert.deepEqual(plan(def('media-bytes'), '1y'), { bucketSeconds: DAY, resolution: DAY });
  });

  it('a range is its buckets up to the one holding now, aligned to UTC', () => {
    const hour = rangeBuckets('1h', MINUTE, T0);
    assert.equal(hour.length, 60);
    assert.equal(hour.at(-1), Date.UTC(2025, 2, 4, 10, 17) / 1000);
    assert.equal(hour[0], Date.UTC(2025, 2, 4, 9, 18) / 1000);
    const month = rangeBuckets('30d', DAY, T0);
    assert.equal(month.length, 30);
    assert.equal(month.at(-1), Date.UTC(2025, 2, 4) / 1000, 'a day bucket starts at midnight UTC');
  });

  it('sums stored buckets into display buckets and fills empty counter buckets with 0, empty gauge buckets with null', () => {
    const buckets = rangeBuckets('24h', 15 * MINUTE, T0);
    const at = (h: number, m: number) => Date.UTC(2025, 2, 4, h, m) / 1000;
    /** The display points of stored buckets (bucket start, value) in 15-minute display buckets. */
    const display = (kind: 'counter' | 'gauge', stored: Array<[number, number]>) =>
      toDisplayPoints(kind, buckets, 15 * MINUTE, new Map(stored));
    const counter = display('counter', [
      [at(10, 1), 3],
      [at(10, 14), 4],
      [at(10, 16), 5],
    ]);
    assert.equal(counter.length, 96);
    assert.deepEqual(counter.at(-1), [at(10, 15), 5]);
    assert.deepEqual(counter.at(-2), [at(10, 0), 7], 'minutes 10:01 and 10:14 fall in the 10:00 bucket');
    assert.deepEqual(counter[0], [buckets[0], 0]);
    assert.equal(total(counter), 12);
    const gauge = display('gauge', [
      [at(10, 14), 900],
      [at(10, 1), 100],
    ]);
    assert.deepEqual(gauge.at(-2), [at(10, 0), 900], 'a gauge shows the latest sample of the bucket');
    assert.deepEqual(gauge.at(-1), [at(10, 15), null]);
  });

  it('counts in memory per bucket size, replaces gauge samples, and stays bounded', () => {
    const pending = new PendingBuckets(6);
    pending.record(def('api-requests'), 'ignored', T0, 1);
    pending.record(def('api-requests'), 'ignored', T0 + 10, 2);
    assert.equal(pending.size, 3, 'one bucket per stored size: minute, hour, day');
    const minute = pending.select(new Set(['api-requests']), new Set(['']), MINUTE, 0);
    assert.deepEqual(minute, [{ series: 'api-requests', tenantId: '', resolution: MINUTE, bucketStart: T0 - 30, value: 3 }]);
    pending.record(def('media-bytes'), '', T0, 500);
    pending.record(def('media-bytes'), '', T0 + 60, 700);
    assert.equal(pending.select(new Set(['media-bytes']), new Set(['']), HOUR, 0)[0]!.value, 700);
    // 5 keys now; a new tenant's entries need two more: one fits, one is dropped and counted.
    pending.record(def('entries-created'), 'tenant-b', T0, 1);
    assert.equal(pending.size, 6);
    assert.equal(pending.dropped, 1);
    pending.record(def('api-requests'), '', T0, 1);
    assert.equal(pending.dropped, 1, 'existing buckets still add up when full');
    const taken = pending.take();
    assert.equal(pending.size, 0);
    pending.record(def('api-requests'), '', T0, 1);
    pending.restore(taken);
    assert.equal(pending.select(new Set(['api-requests']), new Set(['']), MINUTE, 0)[0]!.value, 5, 'a failed write is added back');
  });

  it('merges stored and unflushed figures: counters add, a newer gauge sample replaces', () => {
    const stored = [
      { bucketStart: 60, value: 4 },
      { bucketStart: 120, value: 1 },
    ];
    const pending = [
      { bucketStart: 120, value: 2 },
      { bucketStart: 180, value: 3 },
    ];
    assert.deepEqual(
      [...mergePoints('counter', stored, pending)],
      [
        [60, 4],
        [120, 3],
        [180, 3],
      ],
    );
    assert.deepEqual(
      [...mergePoints('gauge', stored, pending)],
      [
        [60, 4],
        [120, 2],
        [180, 3],
      ],
    );
  });

  it('retention: minute buckets 48 h, hour buckets 35 days, day buckets 400 days', () => {
    const cut = Object.fromEntries(retentionCutoffs(T0).map((c) => [c.resolution, c.before]));
    assert.equal(cut[MINUTE], Math.floor((T0 - 48 * HOUR) / MINUTE) * MINUTE);
    assert.equal(cut[HOUR], Math.floor((T0 - 35 * DAY) / HOUR) * HOUR);
    assert.equal(cut[DAY], Math.floor((T0 - 400 * DAY) / DAY) * DAY);
  });

  describe('recorder on a real SQLite database', () => {
    let db: UnitDb;
    let now = T0 * 1000;
    const clock = () => now;
    const recorder = (sampled = { 'media-bytes': 1000, 'database-bytes': 2000 }) =>
      new TimeSeriesRecorder(new MetricPointStore(db.sequelize), async () => sampled, db.logger, { flushMs: 60_000, now: clock });
    const rows = async () =>
      Number(((await db.sequelize.query('SELECT COUNT(*) AS n FROM dashboard_metric_points')) as [Array<{ n: number }>, unknown])[0][0]!.n);

    before(async () => {
      db = await openUnitDb({ plugins: [{ id: 'dashboard', migrations: DASHBOARD_MIGRATIONS }] });
    });
    after(() => db?.close());
    beforeEach(async () => {
      now = T0 * 1000;
      await db.sequelize.query('DELETE FROM dashboard_metric_points');
    });

    it('shows unflushed figures at once, and the same figures after a flush (not twice)', async () => {
      const r = recorder();
      for (let i = 0; i < 5; i++) r.count('api-requests');
      r.count('api-errors');
      r.count('entries-created', 'default', 2);
      r.count('entries-created', 'other');
      const before = await r.query(['api-requests', 'api-errors', 'entries-created'], '1h', 'default');
      assert.deepEqual(
        before.map((s) => [s.name, total(s.points)]),
        [
          ['api-requests', 5],
          ['api-errors', 1],
          ['entries-created', 2],
        ],
      );
      assert.equal(before[0]!.points.at(-1)![1], 5, 'in the current minute');
      assert.equal(await rows(), 0, 'nothing written per event');
      await r.flush();
      assert.ok((await rows()) > 0);
      assert.equal(r.pending.size, 0);
      const after = await r.query(['api-requests', 'api-errors', 'entries-created'], '1h', 'default');
      assert.deepEqual(
        after.map((s) => total(s.points)),
        [5, 1, 2],
      );
      assert.equal(total((await r.query(['entries-created'], '1h', 'other'))[0]!.points), 1, 'each tenant sees its own');
    });

    it('two instances flushing into one database add up (the upsert adds)', async () => {
      const a = recorder();
      const b = recorder();
      for (let i = 0; i < 3; i++) a.count('api-requests');
      for (let i = 0; i < 4; i++) b.count('api-requests');
      await a.flush();
      await b.flush();
      a.count('api-requests');
      await a.flush();
      const seen = await recorder().query(['api-requests'], '24h', 'default');
      assert.equal(total(seen[0]!.points), 8);
      assert.equal(total((await recorder().query(['api-requests'], '7d', 'default'))[0]!.points), 8, 'the hour buckets too');
    });

    it('samples storage levels at start and keeps the latest sample of each bucket', async () => {
      const sampled = { 'media-bytes': 1000, 'database-bytes': 2000 };
      const r = recorder(sampled);
      await r.sample();
      await r.flush();
      sampled['media-bytes'] = 1500;
      now += 11 * 60_000;
      await r.flush(); // 10 minutes since the last sample: samples again, replacing the hour's value
      const [media, database] = await r.query(['media-bytes', 'database-bytes'], '24h', 'default');
      assert.equal(media!.kind, 'gauge');
      assert.equal(media!.points.at(-1)![1], 1500);
      assert.equal(database!.points.at(-1)![1], 2000);
      assert.equal(media!.points[0]![1], null, 'hours without a sample are null, not 0');
    });

    it('a failed write keeps the figures for the next flush', async () => {
      const r = recorder();
      r.count('sign-ins', 'default', 2);
      await db.sequelize.query('ALTER TABLE dashboard_metric_points RENAME TO dashboard_metric_points_away');
      await assert.rejects(r.flush());
      await db.sequelize.query('ALTER TABLE dashboard_metric_points_away RENAME TO dashboard_metric_points');
      assert.equal(total((await r.query(['sign-ins'], '24h', 'default'))[0]!.points), 2, 'still counted in memory');
      await r.flush();
      assert.equal(r.pending.size, 0);
      assert.equal(total((await recorder().query(['sign-ins'], '24h', 'default'))[0]!.points), 2);
    });

    it('prunes buckets past their retention at a flush', async () => {
      const r = recorder();
      r.count('api-requests');
      await r.flush(); // prunes (nothing old yet) and records when it did
      assert.equal(await rows(), 3 + 4, 'minute, hour and day rows of the requests, hour and day rows of two gauges');
      now += 49 * HOUR * 1000;
      r.count('api-requests');
      await r.flush();
      const minuteRows = Number(
        (
          (await db.sequelize.query(`SELECT COUNT(*) AS n FROM dashboard_metric_points WHERE resolution = ${MINUTE}`)) as [
            Array<{ n: number }>,
            unknown,
          ]
        )[0][0]!.n,
      );
      assert.equal(minuteRows, 1, 'the 49-hour-old minute bucket is gone, the new one stays');
      assert.equal(total((await r.query(['api-requests'], '7d', 'default'))[0]!.points), 2, 'hour buckets are kept');
    });
  });
});

import type { PluginBootContext, Logger } from '../../kernel/sdk.js';
import type { MetricPointStore } from './metric-point-store.js';
import {
  mergePoints,
  PendingBuckets,
  plan,
  rangeBuckets,
  retentionCutoffs,
  SERIES_BY_NAME,
  tenantKey,
  toDisplayPoints,
  type RangeName,
  type Resolution,
  type SeriesDefinition,
} from './time-series.js';

/** Storage levels sampled for the gauges; undefined when a source is missing (no media plugin). */
export type GaugeSampler = () => Promise<Partial<Record<string, number>>>;

export interface RecorderOptions {
  /** How often counted figures are written (ms). */
  flushMs: number;
  /** How often the storage gauges are sampled (ms). */
  sampleMs?: number;
  /** How often old buckets are pruned (ms), checked at each flush. */
  pruneMs?: number;
  /** The clock (epoch ms); tests pass their own. */
  now?: () => number;
}

export interface SeriesAnswer {
  name: string;
  label: string;
  unit: string;
  kind: SeriesDefinition['kind'];
  bucketSeconds: number;
  points: Array<[number, number | null]>;
}

/**
 * Counts the dashboard's figures over time in memory, per instance, and flushes them to
 * dashboard_metric_points every flushMs and at close (an adding upsert: several instances on one
 * database sum up). No database write happens per request or per event. Gauges (storage levels) are
 * sampled every sampleMs; buckets past their retention are pruned at a flush at most every pruneMs.
 * A failed flush keeps the figures for the next one (bounded by PendingBuckets).
 */
export class TimeSeriesRecorder {
  readonly pending = new PendingBuckets();
  /** Points of a flush under way: still counted by query() until their write has committed. */
  private inFlight = new PendingBuckets();
  private flushing: Promise<void> = Promise.resolve();
  private lastSample = -Infinity;
  private lastPrune = -Infinity;
  private readonly now: () => number;

  constructor(
    private readonly store: MetricPointStore,
    private readonly sampler: GaugeSampler,
    private readonly logger: Logger,
    private readonly options: RecorderOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Adds n to a counter series now (tenant ignored for instance-wide series). Unknown names are ignored. */
  count(series: string, tenantId = '', n = 1): void {
    const def = SERIES_BY_NAME.get(series);
    if (def?.kind === 'counter' && n > 0) this.pending.record(def, tenantId, Math.floor(this.now() / 1000), n);
  }

  /** Records a gauge sample now (replacing an earlier sample in the same buckets). */
  gauge(series: string, value: number): void {
    const def = SERIES_BY_NAME.get(series);
    if (def?.kind === 'gauge' && Number.isFinite(value)) this.pending.record(def, '', Math.floor(this.now() / 1000), value);
  }

  /** Samples the gauges now; a failing source is logged and skipped. */
  async sample(): Promise<void> {
    this.lastSample = this.now();
    try {
      for (const [series, value] of Object.entries(await this.sampler())) if (value !== undefined) this.gauge(series, value);
    } catch (err) {
      this.logger.warn({ err }, 'dashboard: sampling storage figures failed');
    }
  }

  /** Samples the gauges now and flushes every `flushMs` (ctx.every: stopped with the plugin, before close()). */
  start(every: PluginBootContext['every']): void {
    void this.sample();
    // A failed write is logged by flush() and kept for the next one.
    every({ name: 'dashboard: flushing figures over time', everyMs: this.options.flushMs, run: () => this.flush().catch(() => undefined) });
  }

  /** Writes what is pending (samples the gauges and prunes first when due); one flush at a time. */
  flush(): Promise<void> {
    const run = this.flushing.then(async () => {
      if (this.now() - this.lastSample >= (this.options.sampleMs ?? 10 * 60_000)) await this.sample();
      const points = this.pending.take();
      this.inFlight.restore(points);
      try {
        await this.store.write(points);
        this.inFlight = new PendingBuckets();
      } catch (err) {
        this.inFlight = new PendingBuckets();
        this.pending.restore(points);
        this.logger.warn({ err, points: points.length }, 'dashboard: writing figures over time failed; kept for the next flush');
        throw err;
      }
      if (this.now() - this.lastPrune >= (this.options.pruneMs ?? 3600_000)) {
        this.lastPrune = this.now();
        await this.store
          .prune(retentionCutoffs(Math.floor(this.now() / 1000)))
          .catch((err) => this.logger.warn({ err }, 'dashboard: pruning old figures failed'));
      }
    });
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** Writes what is pending (at shutdown, after the flush timer stopped). */
  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
  }

  /**
   * Series over a range for a reader of `tenantId`: stored buckets merged with this instance's
   * unflushed ones, summed into the range's display buckets, empty counter buckets as 0.
   */
  async query(names: string[], range: RangeName, tenantId: string): Promise<SeriesAnswer[]> {
    const nowSeconds = Math.floor(this.now() / 1000);
    const defs = names.map((n) => SERIES_BY_NAME.get(n)!).filter(Boolean);
    const plans = defs.map((def) => {
      const p = plan(def, range);
      return { def, ...p, buckets: rangeBuckets(range, p.bucketSeconds, nowSeconds) };
    });
    // One read per stored bucket size.
    const byResolution = new Map<Resolution, typeof plans>();
    for (const p of plans) byResolution.set(p.resolution, [...(byResolution.get(p.resolution) ?? []), p]);
    const answers = new Map<string, SeriesAnswer>();
    for (const [resolution, group] of byResolution) {
      const from = Math.min(...group.map((g) => g.buckets[0]!));
      const series = group.map((g) => g.def.name);
      const tenants = [...new Set(group.map((g) => tenantKey(g.def, tenantId)))];
      const stored = await this.store.read(series, tenants, resolution, from);
      // Taken after the read returns, so a flush that committed meanwhile is not counted twice.
      const [names, ids] = [new Set(series), new Set(tenants)];
      // Oldest first: a newer gauge sample replaces an older one.
      const unflushed = [...this.inFlight.select(names, ids, resolution, from), ...this.pending.select(names, ids, resolution, from)];
      for (const { def, bucketSeconds, buckets } of group) {
        const own = (p: { series: string; tenantId: string }) => p.series === def.name && p.tenantId === tenantKey(def, tenantId);
        const values = mergePoints(def.kind, stored.filter(own), unflushed.filter(own));
        answers.set(def.name, {
          name: def.name,
          label: def.label,
          unit: def.unit,
          kind: def.kind,
          bucketSeconds,
          points: toDisplayPoints(def.kind, buckets, bucketSeconds, values),
        });
      }
    }
    return defs.map((d) => answers.get(d.name)!);
  }
}

/**
 * The figures over time the dashboard keeps (see time-series-recorder.ts for how they are counted and
 * stored): the catalogue of series, their bucket sizes and retention, and the pure arithmetic of
 * buckets (aligning, merging what is not yet flushed, filling empty buckets, summing into a range's
 * display buckets). No I/O here.
 */

export const MINUTE = 60;
export const HOUR = 3600;
export const DAY = 86400;

/** Stored bucket sizes in seconds; buckets are aligned to UTC (a day bucket starts at 00:00 UTC). */
export type Resolution = typeof MINUTE | typeof HOUR | typeof DAY;

/** How long stored buckets are kept (seconds): per-minute 48 h, per-hour 35 days, per-day 400 days. */
export const RETENTION: Record<Resolution, number> = { [MINUTE]: 48 * HOUR, [HOUR]: 35 * DAY, [DAY]: 400 * DAY };

export interface SeriesDefinition {
  name: string;
  label: string;
  /** What one unit of the value is ("requests", "bytes"). */
  unit: string;
  /** counter: events added up per bucket (empty buckets are 0); gauge: a sampled level, the last sample of a bucket wins (empty buckets are null). */
  kind: 'counter' | 'gauge';
  /** instance: one figure for the whole installation; tenant: kept per tenant, a reader sees its own tenant's. */
  scope: 'instance' | 'tenant';
  /** The stored bucket sizes, finest first; every event or sample is added to each. */
  resolutions: readonly Resolution[];
}

const ALL: readonly Resolution[] = [MINUTE, HOUR, DAY];
const HOURLY: readonly Resolution[] = [HOUR, DAY];

export const SERIES: readonly SeriesDefinition[] = [
  { name: 'api-requests', label: 'API requests', unit: 'requests', kind: 'counter', scope: 'instance', resolutions: ALL },
  { name: 'api-errors', label: 'Server errors (5xx)', unit: 'responses', kind: 'counter', scope: 'instance', resolutions: ALL },
  { name: 'api-client-errors', label: 'Client errors (4xx)', unit: 'responses', kind: 'counter', scope: 'instance', resolutions: ALL },
  { name: 'sign-ins', label: 'Sign-ins', unit: 'sign-ins', kind: 'counter', scope: 'tenant', resolutions: HOURLY },
  { name: 'sign-in-failures', label: 'Failed sign-ins', unit: 'attempts', kind: 'counter', scope: 'tenant', resolutions: HOURLY },
  { name: 'entries-created', label: 'Entries created', unit: 'entries', kind: 'counter', scope: 'tenant', resolutions: HOURLY },
  { name: 'media-uploaded', label: 'Media uploaded', unit: 'files', kind: 'counter', scope: 'tenant', resolutions: HOURLY },
  { name: 'media-bytes', label: 'Media storage', unit: 'bytes', kind: 'gauge', scope: 'instance', resolutions: HOURLY },
  { name: 'database-bytes', label: 'Database size', unit: 'bytes', kind: 'gauge', scope: 'instance', resolutions: HOURLY },
];

export const SERIES_BY_NAME: ReadonlyMap<string, SeriesDefinition> = new Map(SERIES.map((s) => [s.name, s]));

/** The ranges a chart can ask for: how far back, and the display bucket (before a series' own finest bucket). */
export const RANGES = {
  '1h': { seconds: HOUR, bucket: MINUTE },
  '24h': { seconds: DAY, bucket: 15 * MINUTE },
  '7d': { seconds: 7 * DAY, bucket: HOUR },
  '30d': { seconds: 30 * DAY, bucket: DAY },
  '1y': { seconds: 365 * DAY, bucket: DAY },
} as const;
export type RangeName = keyof typeof RANGES;
export const RANGE_NAMES = Object.keys(RANGES) as RangeName[];

export const bucketStart = (epochSeconds: number, size: number): number => Math.floor(epochSeconds / size) * size;

/** One stored figure: a series' value in one bucket of one size, for one tenant ('' for instance-wide series). */
export interface MetricPoint {
  series: string;
  tenantId: string;
  resolution: Resolution;
  bucketStart: number;
  value: number;
}

export const tenantKey = (def: SeriesDefinition, tenantId: string): string => (def.scope === 'tenant' ? tenantId : '');
const pointKey = (p: Omit<MetricPoint, 'value'>) => `${p.series}\u0000${p.tenantId}\u0000${p.resolution}\u0000${p.bucketStart}`;

/**
 * Figures counted in memory and not yet written: one entry per series, tenant, bucket size and bucket.
 * Bounded: beyond maxKeys new buckets are dropped and counted in `dropped` (existing ones still add up).
 */
export class PendingBuckets {
  private readonly points = new Map<string, MetricPoint>();
  /**
   * The pending point each series, tenant and bucket size last added to (per request counters hit the same
   * bucket until it ends): found without building its key. Emptied with the points.
   */
  private readonly hot = new Map<SeriesDefinition, Map<string, Array<MetricPoint | undefined>>>();
  dropped = 0;

  constructor(private readonly maxKeys = 10_000) {}

  get size(): number {
    return this.points.size;
  }

  /** Adds `amount` to a counter (or sets a gauge) in each of its bucket sizes at `atSeconds`. */
  record(def: SeriesDefinition, tenantId: string, atSeconds: number, amount: number): void {
    const tenant = tenantKey(def, tenantId);
    let byTenant = this.hot.get(def);
    if (!byTenant) this.hot.set(def, (byTenant = new Map()));
    let last = byTenant.get(tenant);
    if (!last) {
      if (byTenant.size >= 1000) byTenant.clear();
      byTenant.set(tenant, (last = []));
    }
    def.resolutions.forEach((resolution, i) => {
      const start = bucketStart(atSeconds, resolution);
      const hit = last[i];
      if (hit && hit.bucketStart === start) {
        hit.value = def.kind === 'gauge' ? amount : hit.value + amount;
        return;
      }
      last[i] = this.put(def.kind, { series: def.name, tenantId: tenant, resolution, bucketStart: start, value: amount });
    });
  }

  /** Adds the point (or its value to the pending one); the pending point, or undefined when dropped. */
  private put(kind: SeriesDefinition['kind'], point: MetricPoint): MetricPoint | undefined {
    const key = pointKey(point);
    const existing = this.points.get(key);
    if (existing) existing.value = kind === 'gauge' ? point.value : existing.value + point.value;
    else if (this.points.size >= this.maxKeys) this.dropped++;
    else this.points.set(key, { ...point });
    return this.points.get(key);
  }

  /** Everything pending, emptied (to be written). */
  take(): MetricPoint[] {
    const all = [...this.points.values()];
    this.points.clear();
    this.hot.clear();
    return all;
  }

  /** Puts back points whose write failed (added to what was counted since; a newer gauge sample wins). */
  restore(points: MetricPoint[]): void {
    for (const p of points) {
      const def = SERIES_BY_NAME.get(p.series);
      if (!def) continue;
      const key = pointKey(p);
      const existing = this.points.get(key);
      if (existing) {
        if (def.kind === 'counter') existing.value += p.value;
      } else this.put(def.kind, p);
    }
  }

  /** Pending points of some series and tenants at one bucket size, from a bucket start on (copies). */
  select(series: ReadonlySet<string>, tenantIds: ReadonlySet<string>, resolution: Resolution, fromBucket: number): MetricPoint[] {
    const out: MetricPoint[] = [];
    for (const p of this.points.values())
      if (p.resolution === resolution && p.bucketStart >= fromBucket && series.has(p.series) && tenantIds.has(p.tenantId))
        out.push({ ...p });
    return out;
  }
}

/**
 * Stored and pending figures of one series together: counters add up (what other instances and this
 * one flushed, plus what this one has not flushed yet); a pending gauge sample replaces the stored one.
 */
export function mergePoints(
  kind: SeriesDefinition['kind'],
  stored: Array<{ bucketStart: number; value: number }>,
  pending: Array<{ bucketStart: number; value: number }>,
): Map<number, number> {
  const byBucket = new Map<number, number>();
  for (const p of stored) byBucket.set(p.bucketStart, (byBucket.get(p.bucketStart) ?? 0) + p.value);
  for (const p of pending) byBucket.set(p.bucketStart, kind === 'gauge' ? p.value : (byBucket.get(p.bucketStart) ?? 0) + p.value);
  return byBucket;
}

/** The display bucket of a series in a range (never finer than what it stores) and the stored size it is read from. */
export function plan(def: SeriesDefinition, range: RangeName): { bucketSeconds: number; resolution: Resolution } {
  const r = RANGES[range];
  const bucketSeconds = Math.max(r.bucket, def.resolutions[0]!);
  const fits = def.resolutions.filter((res) => res <= bucketSeconds && bucketSeconds % res === 0 && RETENTION[res] >= r.seconds);
  const resolution = fits.at(-1);
  if (resolution === undefined) throw new Error(`Series ${def.name} has no stored bucket for the range ${range}`);
  return { bucketSeconds, resolution };
}

/** The display buckets of a range ending with the one holding `nowSeconds`, oldest first. */
export function rangeBuckets(range: RangeName, bucketSeconds: number, nowSeconds: number): number[] {
  const count = Math.ceil(RANGES[range].seconds / bucketSeconds);
  const last = bucketStart(nowSeconds, bucketSeconds);
  return Array.from({ length: count }, (_, i) => last - (count - 1 - i) * bucketSeconds);
}

/**
 * [epochSeconds, value] per display bucket: stored buckets summed into the display bucket holding them
 * (a gauge takes the latest sample in it); empty buckets are 0 for counters and null for gauges.
 */
export function toDisplayPoints(
  kind: SeriesDefinition['kind'],
  buckets: number[],
  bucketSeconds: number,
  values: Map<number, number>,
): Array<[number, number | null]> {
  const sums = new Map<number, number>();
  const latest = new Map<number, number>();
  for (const [start, value] of values) {
    const display = bucketStart(start, bucketSeconds);
    if (kind === 'counter') sums.set(display, (sums.get(display) ?? 0) + value);
    else if (start >= (latest.get(display) ?? -Infinity)) {
      latest.set(display, start);
      sums.set(display, value);
    }
  }
  return buckets.map((b) => [b, sums.get(b) ?? (kind === 'counter' ? 0 : null)]);
}

/** Per stored bucket size: buckets starting before this are past their retention. */
export function retentionCutoffs(nowSeconds: number): Array<{ resolution: Resolution; before: number }> {
  return ([MINUTE, HOUR, DAY] as const).map((resolution) => ({
    resolution,
    before: bucketStart(nowSeconds - RETENTION[resolution], resolution),
  }));
}

/** The retention as the endpoint reports it: seconds per stored bucket size. */
export const RETENTION_REPORT = {
  minuteBucketsSeconds: RETENTION[MINUTE],
  hourBucketsSeconds: RETENTION[HOUR],
  dayBucketsSeconds: RETENTION[DAY],
};

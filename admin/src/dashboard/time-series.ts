// The dashboard's time-series charts (TimeSeriesChart.svelte): which widgets get one, which series and
// ranges they show, and the words around them (axis units, the accessible summary, the empty state).
import { formatBytes } from '../lib/format';

export type RangeName = '1h' | '24h' | '7d' | '30d';

export interface SeriesData {
  name: string;
  label: string;
  unit: string;
  kind: 'counter' | 'gauge';
  bucketSeconds: number;
  points: Array<[number, number | null]>;
}

export interface TimeSeriesWidget {
  series: string[];
  ranges: RangeName[];
  defaultRange: RangeName;
  /** The empty state's subject: "No requests in the last hour yet". */
  nothing: string;
}

/** Widgets drawn as a chart over time (their component.js shows the latest figures in words below it). */
export const TIME_SERIES_WIDGETS: Record<string, TimeSeriesWidget> = {
  activity: {
    series: ['api-requests', 'api-errors', 'api-client-errors'],
    ranges: ['1h', '24h', '7d'],
    defaultRange: '1h',
    nothing: 'No requests',
  },
  'content-media-activity': {
    series: ['entries-created', 'media-uploaded', 'sign-ins', 'sign-in-failures'],
    ranges: ['24h', '7d', '30d'],
    defaultRange: '30d',
    nothing: 'No entries, media or sign-ins',
  },
  'storage-usage': {
    series: ['media-bytes', 'database-bytes'],
    ranges: ['24h', '7d', '30d'],
    defaultRange: '30d',
    nothing: 'No storage sample',
  },
};

export const RANGE_WORDS: Record<RangeName, string> = {
  '1h': 'last hour',
  '24h': 'last 24 hours',
  '7d': 'last 7 days',
  '30d': 'last 30 days',
};

/** "minute", "15 minutes", "hour", "day": one display bucket in words. */
export function bucketWords(seconds: number): string {
  if (seconds % 86400 === 0) return seconds === 86400 ? 'day' : `${seconds / 86400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  return seconds === 60 ? 'minute' : `${Math.round(seconds / 60)} minutes`;
}

/** The y-axis label: "requests per minute", "per day" when the series count different things, "bytes" for levels. */
export function axisLabel(series: SeriesData[]): string {
  if (!series.length) return '';
  const units = [...new Set(series.map((s) => s.unit))];
  if (series.every((s) => s.kind === 'gauge')) return units.join(', ');
  const per = `per ${bucketWords(series[0]!.bucketSeconds)}`;
  return units.length === 1 ? `${units[0]} ${per}` : per;
}

export const formatValue = (s: Pick<SeriesData, 'unit'>, v: number | null | undefined): string =>
  v === null || v === undefined ? '–' : s.unit === 'bytes' ? formatBytes(v) : Math.round(v).toLocaleString();

export function hasData(series: SeriesData[]): boolean {
  return series.some((s) => s.points.some(([, v]) => v !== null && (s.kind === 'gauge' || v > 0)));
}

/**
 * What the chart shows, in words (its aria-label): "API requests per minute, last hour: 42 in all,
 * peak 9. Server errors (5xx) per minute: 1 in all, peak 1." Levels: "Media storage, last 30 days: now 1.2 MB, highest 1.3 MB."
 */
export function summarise(series: SeriesData[], range: RangeName): string {
  return series
    .map((s, i) => {
      const values = s.points.map(([, v]) => v).filter((v): v is number => v !== null);
      const where = i === 0 ? `, ${RANGE_WORDS[range]}` : '';
      if (s.kind === 'gauge') {
        if (!values.length) return `${s.label}${where}: no sample yet.`;
        return `${s.label}${where}: now ${formatValue(s, values.at(-1))}, highest ${formatValue(s, Math.max(...values))}.`;
      }
      const total = values.reduce((a, b) => a + b, 0);
      const peak = values.length ? Math.max(...values) : 0;
      return `${s.label} per ${bucketWords(s.bucketSeconds)}${where}: ${total.toLocaleString()} in all, peak ${peak.toLocaleString()}.`;
    })
    .join(' ');
}

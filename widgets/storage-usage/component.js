// <cms-widget-storage-usage>: the latest storage levels in words ("Media 12.4 MB, database 1.2 MB, sampled
// 3 min ago"). Fetches /api/dashboard/timeseries; the admin dashboard draws the chart of the same figures
// over time above it (admin/src/dashboard/TimeSeriesChart.svelte).
import { defineWidget, el, seriesByName } from '../widget-element.js';

const ENDPOINT = '/api/dashboard/timeseries?series=media-bytes,database-bytes&range=30d';

function bytes(n) {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : Math.round(value * 10) / 10} ${units[unit]}`;
}
const latest = (s) => (s ? ([...s.points].reverse().find(([, v]) => v !== null)?.[1] ?? null) : null);

export const CmsWidget = defineWidget({
  tag: 'cms-widget-storage-usage',
  endpoint: ENDPOINT,
  title: 'Storage over time',
  view: (data) => {
    const by = seriesByName(data);
    const media = latest(by['media-bytes']);
    const database = latest(by['database-bytes']);
    if (media === null && database === null) return el('p', { className: 'cms-muted' }, 'No storage sample yet.');
    const parts = [];
    if (media !== null) parts.push(`media ${bytes(media)}`);
    if (database !== null) parts.push(`database ${bytes(database)}`);
    const text = parts.join(', ');
    return el('p', {}, `Now: ${text.charAt(0).toUpperCase()}${text.slice(1)}.`);
  },
});

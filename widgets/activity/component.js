// <cms-widget-activity>: API requests and errors over the last hour, in words ("42 API requests in the
// last hour, peak 9 a minute; 1 server error, 3 client errors"). Fetches /api/dashboard/timeseries; the
// admin dashboard draws the chart of the same figures above it (admin/src/dashboard/TimeSeriesChart.svelte).
import { defineWidget, el, plural, seriesByName, seriesTotal as total } from '../widget-element.js';

const ENDPOINT = '/api/dashboard/timeseries?series=api-requests,api-errors,api-client-errors&range=1h';
const peak = (s) => (s ? s.points.reduce((n, [, v]) => Math.max(n, v ?? 0), 0) : 0);

export const CmsWidget = defineWidget({
  tag: 'cms-widget-activity',
  endpoint: ENDPOINT,
  title: 'Activity',
  view: (data) => {
    const by = seriesByName(data);
    const requests = total(by['api-requests']);
    if (!requests) return el('p', { className: 'cms-muted' }, 'No API requests in the last hour yet.');
    return el(
      'p',
      { className: 'cms-activity-words' },
      `${plural(requests, 'API request', 'API requests')} in the last hour, peak ${peak(by['api-requests']).toLocaleString()} a minute; `,
      `${plural(total(by['api-errors']), 'server error', 'server errors')}, ${plural(total(by['api-client-errors']), 'client error', 'client errors')}.`,
    );
  },
});

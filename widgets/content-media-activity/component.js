// <cms-widget-content-media-activity>: what happened over the last 30 days, in words ("12 entries created,
// 3 media files uploaded, 5 sign-ins, 1 failed sign-in"). Fetches /api/dashboard/timeseries; the admin
// dashboard draws the chart of the same figures above it (admin/src/dashboard/TimeSeriesChart.svelte).
import { defineWidget, el, plural, seriesByName, seriesTotal as total } from '../widget-element.js';

const ENDPOINT = '/api/dashboard/timeseries?series=entries-created,media-uploaded,sign-ins,sign-in-failures&range=30d';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-content-media-activity',
  endpoint: ENDPOINT,
  title: 'Content and media',
  view: (data) => {
    const by = seriesByName(data);
    const [entries, media, signIns, failed] = ['entries-created', 'media-uploaded', 'sign-ins', 'sign-in-failures'].map((n) =>
      total(by[n]),
    );
    if (!entries && !media && !signIns && !failed)
      return el('p', { className: 'cms-muted' }, 'Nothing created and no sign-ins in the last 30 days yet.');
    return el(
      'p',
      {},
      `Last 30 days: ${plural(entries, 'entry', 'entries')} created, ${plural(media, 'media file', 'media files')} uploaded, `,
      `${plural(signIns, 'sign-in', 'sign-ins')}, ${plural(failed, 'failed sign-in', 'failed sign-ins')}.`,
    );
  },
});

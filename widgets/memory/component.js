// <cms-widget-memory>: Memory of the host in words ("3.2 GB of 15.6 GB used (21 %)") with a bar and what is
// free. Fetches /api/dashboard/system-info?type=memory.
import { bytes, defineWidget, el, lead, meter, percent, stack } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-memory',
  endpoint: '/api/dashboard/system-info?type=memory',
  title: 'Memory',
  view: ({ memoryInfo: m }) => {
    const ratio = m.total ? m.used / m.total : 0;
    return stack(
      lead(`${bytes(m.used)} of ${bytes(m.total)} used (${percent(ratio)})`),
      meter(ratio, `Memory used: ${percent(ratio)}`),
      el('p', { className: 'cms-muted' }, `${bytes(m.free)} free`),
    );
  },
});

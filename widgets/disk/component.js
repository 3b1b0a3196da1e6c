// <cms-widget-disk>: The disk that holds the data folder in words ("173.9 GB of 252 GB used (69 %)") with a bar,
// what is free and which folder. Fetches /api/dashboard/system-info?type=disk.
import { bytes, clip, defineWidget, el, empty, lead, meter, percent, stack } from '../widget-element.js';

const GB = 1024 ** 3;

export const CmsWidget = defineWidget({
  tag: 'cms-widget-disk',
  endpoint: '/api/dashboard/system-info?type=disk',
  title: 'Disk',
  view: ({ diskInfo }) => {
    const d = diskInfo?.root;
    if (!d) return empty("The data folder's disk could not be read.");
    const ratio = d.usedPercent / 100;
    return stack(
      lead(`${bytes(d.usedGb * GB)} of ${bytes(d.totalGb * GB)} used (${percent(ratio)})`),
      meter(ratio, `Disk used: ${percent(ratio)}`),
      el('p', { className: 'cms-muted' }, `${bytes(d.freeGb * GB)} free for the data folder `, clip(d.path, 'cms-path')),
    );
  },
});

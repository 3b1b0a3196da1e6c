// <cms-widget-cpu>: CPU in words: cores and model ("2 cores, AMD EPYC at 2.4 GHz"), the load average over 1,
// 5 and 15 minutes and how busy that is for the cores. Fetches /api/dashboard/system-info?type=cpu.
import { badge, defineWidget, el, facts, lead, number, plural, stack } from '../widget-element.js';

/** Load per core: below 0.7 the host is idle or normal, up to 1 busy, above 1 work waits for a core. */
function busy(load, cores) {
  const perCore = load / Math.max(1, cores);
  if (perCore < 0.7) return badge('Normal', 'ok');
  if (perCore <= 1) return badge('Busy', 'warn');
  return badge('Overloaded', 'bad');
}

export const CmsWidget = defineWidget({
  tag: 'cms-widget-cpu',
  endpoint: '/api/dashboard/system-info?type=cpu',
  title: 'CPU',
  view: ({ cpuInfo: c }) => {
    const [l1 = 0, l5 = 0, l15 = 0] = c.loadAverage ?? [];
    const speed = c.speedMHz > 0 ? ` at ${number(c.speedMHz / 1000, 1)} GHz` : '';
    return stack(
      lead(`${plural(c.cores, 'core')}, `, el('span', { title: c.model }, `${c.model}${speed}`)),
      el('p', {}, `Load ${number(l1, 2)} `, busy(l1, c.cores)),
      facts([
        ['Last 5 min', number(l5, 2)],
        ['Last 15 min', number(l15, 2)],
      ]),
    );
  },
});

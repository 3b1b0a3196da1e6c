// The "Add widget" picker: which widgets it offers and in what order. Free widgets first, by category
// (monitoring, content, logs) and within one in a reading order; paid widgets last with their licence
// state in words; widgets whose data a fresh install does not have (the commerce preset's) only when their
// endpoint says the data is there, else under "Not available" with what they need.
import type { LicenseState, WidgetInfo } from './types';

const CATEGORY_ORDER = ['monitoring', 'content', 'logs', 'static'];
export const CATEGORY_LABELS: Record<string, string> = {
  monitoring: 'Monitoring',
  content: 'Content',
  logs: 'Logs and messages',
  static: 'Other',
};
/** Within a category: the overview first, details after. Widgets not named here follow, by name. */
const READING_ORDER = [
  'system-health',
  'cpu',
  'memory',
  'disk',
  'cache-monitor',
  'database-pool-diagnostics',
  'unified-metrics',
  'user-online',
  'security',
  'tenant-analytics',
  'last5-content',
  'last5-media',
  'media-storage-analytics',
  'commerce-orders',
  'commerce-inventory',
  'system-messages',
  'audit-log',
  'logs',
];

/** Widgets whose endpoint answers {available: false} without some content: what they need, in words. */
export const NEEDS: Record<string, string> = {
  'commerce-orders': 'needs the orders collection of the commerce preset',
  'commerce-inventory': 'needs the products collection of the commerce preset',
};

export interface PickerSection {
  key: string;
  title: string;
  widgets: WidgetInfo[];
}

const rank = (w: WidgetInfo) => {
  const c = CATEGORY_ORDER.indexOf(w.category ?? 'static');
  const r = READING_ORDER.indexOf(w.id);
  return [c < 0 ? CATEGORY_ORDER.length : c, r < 0 ? READING_ORDER.length : r] as const;
};

export function pickerOrder(a: WidgetInfo, b: WidgetInfo): number {
  const [ca, ra] = rank(a);
  const [cb, rb] = rank(b);
  return ca - cb || ra - rb || a.name.localeCompare(b.name);
}

/**
 * The picker's sections: one per category of free widgets, then "Paid widgets", then "Not available"
 * (widgets of NEEDS whose data is missing: `missing`). Widgets of NEEDS not yet checked are left out.
 */
export function pickerSections(offered: WidgetInfo[], checked: Set<string>, missing: Set<string>): PickerSection[] {
  const usable = offered.filter((w) => !NEEDS[w.id] || (checked.has(w.id) && !missing.has(w.id))).sort(pickerOrder);
  const sections: PickerSection[] = [];
  for (const category of [...CATEGORY_ORDER, undefined]) {
    const widgets = usable.filter(
      (w) => w.license !== 'paid' && (category ? w.category === category : !CATEGORY_ORDER.includes(w.category ?? '')),
    );
    if (widgets.length) sections.push({ key: category ?? 'other', title: CATEGORY_LABELS[category ?? 'static']!, widgets });
  }
  const paid = usable.filter((w) => w.license === 'paid');
  if (paid.length) sections.push({ key: 'paid', title: 'Paid widgets', widgets: paid });
  const unavailable = offered.filter((w) => missing.has(w.id)).sort(pickerOrder);
  if (unavailable.length) sections.push({ key: 'unavailable', title: 'Not available', widgets: unavailable });
  return sections;
}

/** A paid widget's licence state as a sentence. */
export function licenceWords(state: LicenseState, now = Date.now()): string {
  const date = (iso: string) => new Date(iso).toLocaleDateString(undefined, { day: 'numeric', month: 'long', year: 'numeric' });
  if (state.reason === 'licensed') return `Paid widget, licensed${state.licensee ? ` to ${state.licensee}` : ''}.`;
  if (state.reason === 'trial') {
    const days = Math.max(1, Math.ceil((Date.parse(state.trialEndsAt) - now) / 86400000));
    return `Paid widget, free during the trial: ${days === 1 ? '1 day' : `${days} days`} left (until ${date(state.trialEndsAt)}).`;
  }
  return `Paid widget: the trial ended on ${date(state.trialEndsAt)}; it needs a licence key.`;
}

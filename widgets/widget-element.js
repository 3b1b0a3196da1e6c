// The element every dashboard widget's component.js defines: plain DOM, no framework (the admin UI hosts it),
// and the helpers widgets lay their data out with: formatting (number, bytes, percent, plural, relativeTime,
// duration) and small builders (el, rows, when, badge, facts, table, clip, meter, empty). The formatting helpers are
// pure (no DOM), so they are unit-tested in Node (test/unit/widget-format.test.ts).
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/** "failedLoginAttempts" -> "Failed login attempts": a record key as a label. */
export function label(key) {
  const words = String(key)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// The fallback of a widget without view(data) (e.g. one a plugin adds): its figures as nested lists,
// keys as labels and times in words.
function render(value, depth = 0) {
  if (value === null || value === undefined) return document.createTextNode('-');
  if (typeof value === 'string' && ISO_TIME.test(value)) return when(value);
  if (typeof value !== 'object') return document.createTextNode(typeof value === 'number' ? number(value) : String(value));
  if (depth > 2) return document.createTextNode(Array.isArray(value) ? plural(value.length, 'item') : '...');
  const list = document.createElement(Array.isArray(value) ? 'ol' : 'dl');
  for (const [key, item] of Object.entries(value).slice(0, 50)) {
    if (Array.isArray(value)) {
      const li = document.createElement('li');
      li.append(render(item, depth + 1));
      list.append(li);
    } else {
      const dt = document.createElement('dt');
      dt.textContent = label(key);
      const dd = document.createElement('dd');
      dd.append(render(item, depth + 1));
      list.append(dt, dd);
    }
  }
  return list;
}

/** "3 min ago", "2 h ago", "yesterday", else the date: how people read a time in a list. */
export function relativeTime(iso, now = Date.now()) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.round((now - t) / 1000);
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.max(1, Math.round(s / 60))} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  if (s < 2 * 86400) return 'yesterday';
  if (s < 7 * 86400) return `${Math.round(s / 86400)} days ago`;
  return new Date(t).toLocaleDateString();
}

/** "2 h 11 min", "3 days 4 h", "45 s": an uptime in seconds, in words. */
export function duration(seconds) {
  const s = Math.max(0, Math.floor(Number(seconds) || 0));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d} ${d === 1 ? 'day' : 'days'}${h ? ` ${h} h` : ''}`;
  if (h) return `${h} h${m ? ` ${m} min` : ''}`;
  if (m) return `${m} min`;
  return `${s} s`;
}

/** A small element: el('a', { href, className }, 'text', child, ...). */
export function el(name, props = {}, ...children) {
  const node = document.createElement(name);
  for (const [k, v] of Object.entries(props)) if (v !== undefined && v !== null) node[k] = v;
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** A list of rows (ul.cms-plain.cms-rows), one li an item with the children row(item) returns; className on each li. */
export function rows(items, row, className = undefined) {
  return el('ul', { className: 'cms-plain cms-rows' }, ...items.map((item) => el('li', { className }, ...row(item))));
}

/** The widget's body: its parts one under the other (div.cms-stack). */
export function stack(...children) {
  return el('div', { className: 'cms-stack' }, ...children);
}

/** The one sentence that says it all, first in the body (p.cms-lead). */
export function lead(...children) {
  return el('p', { className: 'cms-lead' }, ...children);
}

/** 1234567 -> "1,234,567" (the reader's locale); at most `digits` decimals. */
export function number(value, digits = 1) {
  const n = Number(value);
  if (!Number.isFinite(n)) return '-';
  return n.toLocaleString(undefined, { maximumFractionDigits: digits });
}

/** "1 user", "3 users": a count with its noun (`many` when the plural is not noun + s). */
export function plural(count, one, many = `${one}s`) {
  return `${number(count, 0)} ${Number(count) === 1 ? one : many}`;
}

/** 3435973837 -> "3.2 GB" (binary units, as the operating system counts them). */
export function bytes(value) {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  const shown = i === 0 ? String(Math.round(v)) : number(v >= 100 ? Math.round(v) : Math.round(v * 10) / 10, 1);
  return `${shown} ${units[i]}`;
}

/** A ratio 0..1 -> "21 %", "3.4 %", "0 %" (one decimal below 10 %). */
export function percent(ratio) {
  const p = Number(ratio) * 100;
  if (!Number.isFinite(p)) return '-';
  const rounded = Math.abs(p) < 10 ? Math.round(p * 10) / 10 : Math.round(p);
  return `${number(rounded, 1)} %`;
}

/** A time for people: "3 min ago" in a <time> whose title is the exact date and time. */
export function when(iso, now = Date.now()) {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return document.createTextNode('-');
  return el('time', { dateTime: new Date(t).toISOString(), title: new Date(t).toLocaleString() }, relativeTime(iso, now));
}

/** Badge tones by severity or state: ok (green), warn (amber), bad (red), or neutral. */
const TONES = {
  low: '',
  medium: 'warn',
  high: 'bad',
  critical: 'bad',
  ok: 'ok',
  healthy: 'ok',
  degraded: 'bad',
  down: 'bad',
  saturated: 'warn',
};

/** A small pill: badge('High', 'bad'); the tone defaults from the text (low, medium, high, critical, ok, ...). */
export function badge(text, tone = TONES[String(text).toLowerCase()] ?? '') {
  const s = String(text);
  return el('span', { className: `badge cms-badge${tone ? ` ${tone}` : ''}` }, s.charAt(0).toUpperCase() + s.slice(1));
}

/** Text cut with an ellipsis at the card's edge; the whole text is its title. */
export function clip(text, className = '') {
  const s = String(text ?? '');
  return el('span', { className: `cms-clip${className ? ` ${className}` : ''}`, title: s }, s);
}

/** A definition list of [label, value] pairs (value: text or a node); pairs with a null value are left out. */
export function facts(pairs) {
  const list = el('dl', { className: 'cms-facts' });
  for (const [term, value] of pairs) {
    if (value === null || value === undefined || value === false) continue;
    list.append(el('dt', {}, term), el('dd', {}, value));
  }
  return list;
}

/**
 * A small table: table(['Route', 'Hits'], [['GET /x', '3'], ...], { numeric: [1] }): cells are text or
 * nodes; the columns named in `numeric` are right-aligned.
 */
export function table(headers, rows, { numeric = [], caption = undefined } = {}) {
  const right = (i) => (numeric.includes(i) ? 'cms-num' : undefined);
  return el(
    'table',
    { className: 'cms-table' },
    caption ? el('caption', {}, caption) : null,
    el('thead', {}, el('tr', {}, ...headers.map((h, i) => el('th', { scope: 'col', className: right(i) }, h)))),
    el('tbody', {}, ...rows.map((r) => el('tr', {}, ...r.map((c, i) => el('td', { className: right(i) }, c ?? '-'))))),
  );
}

/** A bar for a share of a whole (disk, memory): amber above 75 %, red above 90 %. */
export function meter(ratio, labelText) {
  const v = Math.min(1, Math.max(0, Number(ratio) || 0));
  return el('meter', { className: 'cms-meter', min: 0, max: 1, low: 0.75, high: 0.9, optimum: 0, value: v, title: labelText }, percent(v));
}

/** A timeseries answer (GET /api/dashboard/timeseries) as its series by name: seriesByName(data)['api-requests']. */
export function seriesByName(data) {
  return Object.fromEntries(data.series.map((s) => [s.name, s]));
}

/** The sum of a series' points (0 when the series is absent). */
export function seriesTotal(series) {
  return series ? series.points.reduce((n, [, v]) => n + (v ?? 0), 0) : 0;
}

/** The empty state of a widget, in words: empty('No sign-ins yet.'). */
export function empty(text, ...more) {
  return el('p', { className: 'cms-empty cms-muted' }, text, ...more);
}

/**
 * Defines the custom element `tag` that fetches `endpoint` (same-origin, the caller's session) and shows
 * its data under `title`: through `view(data)` when the widget has one (a readable layout), else as nested
 * lists of its figures; `refresh="<seconds>"` reloads it. Every widget uses it.
 * @param {{ tag: string, endpoint: string, title: string, view?: (data: any) => Node }} widget
 */
export function defineWidget({ tag, endpoint, title, view = undefined }) {
  class CmsWidget extends HTMLElement {
    connectedCallback() {
      this.load();
      const seconds = Number(this.getAttribute('refresh'));
      if (seconds > 0) this.timer = setInterval(() => this.load(), seconds * 1000);
    }

    disconnectedCallback() {
      clearInterval(this.timer);
    }

    async load() {
      const heading = document.createElement('h3');
      heading.textContent = title;
      let body;
      try {
        const res = await fetch(endpoint, { credentials: 'same-origin', headers: { accept: 'application/json' } });
        const json = await res.json();
        if (!res.ok || json.success === false) throw new Error(json.message || `HTTP ${res.status}`);
        body = view ? view(json.data) : render(json.data);
      } catch (err) {
        body = document.createElement('p');
        body.className = 'cms-widget-error';
        body.textContent = err.message;
      }
      this.replaceChildren(heading, body);
    }
  }
  if (!customElements.get(tag)) customElements.define(tag, CmsWidget);
  return CmsWidget;
}

// The element every dashboard widget's component.js defines: plain DOM, no framework (the admin UI hosts it).
function render(value, depth = 0) {
  if (value === null || value === undefined) return document.createTextNode('-');
  if (typeof value !== 'object') return document.createTextNode(String(value));
  if (depth > 2) return document.createTextNode(Array.isArray(value) ? `${value.length} items` : '...');
  const list = document.createElement(Array.isArray(value) ? 'ol' : 'dl');
  for (const [key, item] of Object.entries(value).slice(0, 50)) {
    if (Array.isArray(value)) {
      const li = document.createElement('li');
      li.append(render(item, depth + 1));
      list.append(li);
    } else {
      const dt = document.createElement('dt');
      dt.textContent = key;
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

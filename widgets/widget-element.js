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

/**
 * Defines the custom element `tag` that fetches `endpoint` (same-origin, the caller's session) and shows
 * its data as nested lists under `title`; `refresh="<seconds>"` reloads it. Every widget uses it.
 */
export function defineWidget({ tag, endpoint, title }) {
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
        body = render(json.data);
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

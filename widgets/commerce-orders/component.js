// <cms-widget-commerce-orders>: Orders. Fetches /api/dashboard/commerce-orders and renders the figures with plain DOM.
const ENDPOINT = '/api/dashboard/commerce-orders';
const TITLE = "Orders";

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

export class CmsWidget extends HTMLElement {
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
    heading.textContent = TITLE;
    let body;
    try {
      const res = await fetch(ENDPOINT, { credentials: 'same-origin', headers: { accept: 'application/json' } });
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

if (!customElements.get('cms-widget-commerce-orders')) customElements.define('cms-widget-commerce-orders', CmsWidget);

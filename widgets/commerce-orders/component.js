// <cms-widget-commerce-orders>: Orders in words: how many, then the newest, each with its number linked to its
// entry, a status badge, the total, the customer and when; says what it needs when the commerce preset's
// orders collection is absent. Fetches /api/dashboard/commerce-orders.
import { badge, clip, defineWidget, el, empty, lead, number, plural, rows, stack, when } from '../widget-element.js';

const TONE = { paid: 'ok', completed: 'ok', shipped: 'ok', pending: 'warn', cancelled: '', refunded: 'bad' };
const money = (n) => Number(n).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const CmsWidget = defineWidget({
  tag: 'cms-widget-commerce-orders',
  endpoint: '/api/dashboard/commerce-orders',
  title: 'Orders',
  view: (o) => {
    if (!o.available) return empty('Not available: needs the orders collection of the commerce preset.');
    if (!o.total) return empty('No orders yet.');
    return stack(
      lead(el('a', { href: '/admin/content/orders' }, plural(o.total, 'order')), ' in total'),
      rows(
        o.recent,
        (r) => [
          el('a', { href: `/admin/content/orders/${encodeURIComponent(r.id)}`, className: 'cms-title' }, r.orderNumber || 'Order'),
          ' ',
          badge(r.status, TONE[r.status] ?? ''),
          el('span', { className: 'cms-num cms-amount' }, money(r.total)),
          el('span', { className: 'cms-muted cms-line' }, r.customerEmail ? clip(r.customerEmail) : null, when(r.createdAt)),
        ],
        'cms-order',
      ),
      o.total > o.recent.length ? el('p', { className: 'cms-muted' }, `The newest ${number(o.recent.length, 0)} shown.`) : null,
    );
  },
});

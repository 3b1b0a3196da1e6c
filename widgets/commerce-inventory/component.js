// <cms-widget-commerce-inventory>: Inventory in words: products tracked and out of stock, then the products
// below their threshold (name linked to the entry, SKU, stock, threshold); says what it needs when the commerce
// preset's products collection is absent. Fetches /api/dashboard/commerce-inventory.
import { badge, clip, defineWidget, el, empty, lead, number, plural, stack, table } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-commerce-inventory',
  endpoint: '/api/dashboard/commerce-inventory',
  title: 'Inventory',
  view: (inv) => {
    if (!inv.available) return empty('Not available: needs the products collection of the commerce preset.');
    if (!inv.tracked) return empty('No products with a stock count yet.');
    return stack(
      lead(
        el('a', { href: '/admin/content/products' }, `${plural(inv.tracked, 'product')} tracked`),
        ...(inv.outOfStock ? [', ', badge(`${number(inv.outOfStock, 0)} out of stock`, 'bad')] : [', none out of stock']),
      ),
      inv.lowStock.length
        ? table(
            ['Product', 'SKU', 'Stock', 'Below'],
            inv.lowStock.map((p) => [
              el('a', { href: `/admin/content/products/${encodeURIComponent(p.id)}`, title: p.title, className: 'cms-clip' }, p.title),
              p.sku ? clip(p.sku) : '-',
              p.qty <= 0 ? badge('Out', 'bad') : number(p.qty, 0),
              number(p.threshold, 0),
            ]),
            { numeric: [2, 3] },
          )
        : empty('Every product is above its stock threshold.'),
    );
  },
});

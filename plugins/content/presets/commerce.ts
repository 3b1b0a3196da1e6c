import type { CollectionInput } from '../collection-schema.js';

/** The commerce preset of the decisions: `products` and `orders`, as the dashboard's commerce widgets read them. */
export const COMMERCE_PRESET: CollectionInput[] = [
  {
    name: 'products',
    label: 'Products',
    singular: 'product',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'sku', type: 'text', unique: true },
      { name: 'description', type: 'richtext' },
      { name: 'price', type: 'number', required: true, indexed: true },
      { name: 'currency', type: 'select', options: ['EUR', 'USD', 'GBP', 'CHF', 'JPY'], default: 'EUR' },
      { name: 'stock', type: 'number', default: 0 },
      { name: 'image', type: 'media' },
      { name: 'active', type: 'boolean', default: true },
    ],
  },
  {
    name: 'orders',
    label: 'Orders',
    singular: 'order',
    fields: [
      { name: 'orderNumber', type: 'text', required: true, unique: true },
      { name: 'customerEmail', type: 'text', indexed: true },
      { name: 'total', type: 'number', required: true },
      { name: 'currency', type: 'select', options: ['EUR', 'USD', 'GBP', 'CHF', 'JPY'], default: 'EUR' },
      {
        name: 'orderStatus',
        type: 'select',
        options: ['pending', 'paid', 'shipped', 'completed', 'cancelled', 'refunded'],
        default: 'pending',
        indexed: true,
      },
      { name: 'items', type: 'json' },
      { name: 'placedAt', type: 'date', indexed: true },
    ],
  },
];

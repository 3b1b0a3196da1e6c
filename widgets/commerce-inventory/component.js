// <cms-widget-commerce-inventory>: Inventory. Fetches /api/dashboard/commerce-inventory and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-commerce-inventory',
  endpoint: '/api/dashboard/commerce-inventory',
  title: 'Inventory',
});

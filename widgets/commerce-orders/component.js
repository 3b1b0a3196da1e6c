// <cms-widget-commerce-orders>: Orders. Fetches /api/dashboard/commerce-orders and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-commerce-orders', endpoint: '/api/dashboard/commerce-orders', title: 'Orders' });

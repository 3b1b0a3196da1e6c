// <cms-widget-tenant-analytics>: Tenant analytics. Fetches /api/dashboard/tenant-analytics and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-tenant-analytics',
  endpoint: '/api/dashboard/tenant-analytics',
  title: 'Tenant analytics',
});

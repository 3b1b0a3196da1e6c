// <cms-widget-cache-monitor>: Cache monitor. Fetches /api/dashboard/cache-metrics and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-cache-monitor',
  endpoint: '/api/dashboard/cache-metrics',
  title: 'Cache monitor',
});

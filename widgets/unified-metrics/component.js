// <cms-widget-unified-metrics>: API metrics. Fetches /api/dashboard/metrics?detailed=true and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-unified-metrics',
  endpoint: '/api/dashboard/metrics?detailed=true',
  title: 'API metrics',
});

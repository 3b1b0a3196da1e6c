// <cms-widget-last5-content>: Latest content. Fetches /api/dashboard/last5-content and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-last5-content',
  endpoint: '/api/dashboard/last5-content',
  title: 'Latest content',
});

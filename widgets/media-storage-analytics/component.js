// <cms-widget-media-storage-analytics>: Media storage. Fetches /api/media/analytics and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-media-storage-analytics',
  endpoint: '/api/media/analytics',
  title: 'Media storage',
});

// <cms-widget-system-messages>: System messages. Fetches /api/dashboard/system-messages and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-system-messages',
  endpoint: '/api/dashboard/system-messages',
  title: 'System messages',
});

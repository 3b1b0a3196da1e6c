// <cms-widget-memory>: Memory. Fetches /api/dashboard/system-info?type=memory and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-memory', endpoint: '/api/dashboard/system-info?type=memory', title: 'Memory' });

// <cms-widget-system-health>: System health. Fetches /api/dashboard/health and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-system-health', endpoint: '/api/dashboard/health', title: 'System health' });

// <cms-widget-logs>: Logs. Fetches /api/dashboard/logs and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-logs', endpoint: '/api/dashboard/logs', title: 'Logs' });

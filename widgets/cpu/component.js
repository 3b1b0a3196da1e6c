// <cms-widget-cpu>: CPU. Fetches /api/dashboard/system-info?type=cpu and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-cpu', endpoint: '/api/dashboard/system-info?type=cpu', title: 'CPU' });

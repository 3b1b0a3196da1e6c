// <cms-widget-disk>: Disk. Fetches /api/dashboard/system-info?type=disk and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-disk', endpoint: '/api/dashboard/system-info?type=disk', title: 'Disk' });

// <cms-widget-audit-log>: Audit log. Fetches /api/dashboard/audit and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-audit-log', endpoint: '/api/dashboard/audit', title: 'Audit log' });

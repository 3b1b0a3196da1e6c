// <cms-widget-security>: Security. Fetches /api/dashboard/security and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-security', endpoint: '/api/dashboard/security', title: 'Security' });

// <cms-widget-scim-status>: Provisioning status. Fetches /api/dashboard/scim and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-scim-status', endpoint: '/api/dashboard/scim', title: 'Provisioning status' });

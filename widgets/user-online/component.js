// <cms-widget-user-online>: Users online. Fetches /api/dashboard/online-user and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({ tag: 'cms-widget-user-online', endpoint: '/api/dashboard/online-user', title: 'Users online' });

// <cms-widget-database-pool-diagnostics>: Database pool. Fetches /api/database/pool-diagnostics and renders the figures with plain DOM.
import { defineWidget } from '../widget-element.js';

export const CmsWidget = defineWidget({
  tag: 'cms-widget-database-pool-diagnostics',
  endpoint: '/api/database/pool-diagnostics',
  title: 'Database pool',
});

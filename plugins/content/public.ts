/**
 * The content plugin's public surface: what other plugins may depend on (event names and the shapes
 * of their payloads). Nothing here runs code or imports the plugin's internals.
 */
export type { ContentEvent } from './entries-service.js';

/** Published on the event bus (every instance) when any collection's schema changes. */
export const COLLECTIONS_CHANGED = 'content:collections-changed';
/** Entry events: payload ContentEvent. */
export const ENTRY_EVENTS = { create: 'on:create', update: 'on:update', delete: 'on:delete', statusChange: 'on:status_change' } as const;

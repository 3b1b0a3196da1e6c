/**
 * The MCP plugin's public surface: its container key (`mcpSessions`: the agent sessions and their recorded changes)
 * and the data-operation domain of agents' bulk changes.
 */
import type { SessionStore } from './session-store.js';

export type { SessionStore, SessionView, ChangeView } from './session-store.js';
export { BULK_DOMAIN as MCP_BULK_DOMAIN } from './bulk-domain.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    mcpSessions: SessionStore;
  }
}

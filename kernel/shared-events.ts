/**
 * Events the kernel declares for every plugin, exported by the SDK: those about state the kernel owns or
 * is taking over, which plugins follow without depending on the plugin that publishes them today.
 */
import { defineEvent } from './events.js';

/**
 * A setting changed (SettingsService.set, and writes around it such as configuration sync or a restore);
 * every instance sees it when Redis is configured. Published by the setup plugin, whose settings store
 * moves into the kernel (wt-config); followed by auth, auth-oidc, GraphQL and maintenance, none of which
 * needs setup (and setup requires auth).
 */
export const SETTING_CHANGED = defineEvent<SettingChangedEvent>('settings:changed');

export interface SettingChangedEvent {
  tenantId: string;
  key: string;
  /** The new value; present for public settings only (a private one is re-read where it is needed, never broadcast). */
  value?: unknown;
}

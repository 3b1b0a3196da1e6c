import { defineEvent } from '../events.js';

/**
 * Published on the event bus by the settings store's writes (every instance sees it when Redis is
 * configured). The kernel owns it with the store; the setup plugin's public.ts re-exports it.
 */
export const SETTING_CHANGED = defineEvent<SettingChangedEvent>('settings:changed');

export interface SettingChangedEvent {
  tenantId: string;
  key: string;
  /** The new value; present for public settings only (a private one is re-read where it is needed, never broadcast). */
  value?: unknown;
}

import { defineEvent } from '../../kernel/sdk.js';

/** Published on the event bus by SettingsService.set (every instance sees it when Redis is configured). */
export const SETTING_CHANGED = defineEvent<SettingChangedEvent>('settings:changed');

export interface SettingChangedEvent {
  tenantId: string;
  key: string;
  /** The new value; present for public settings only (a private one is re-read where it is needed, never broadcast). */
  value?: unknown;
}

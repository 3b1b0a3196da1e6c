/**
 * The setup plugin's public surface (type-only): declares its container keys, so `scope.setup` and
 * `scope.settings` are typed in route handlers.
 */
import type { SettingsService } from './settings-service.js';
import type { SetupService } from './setup-service.js';

export type { SettingsService } from './settings-service.js';
export type { SetupService } from './setup-service.js';

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    setup: SetupService;
    /** Optional for other plugins: absent when the setup plugin is disabled (the auth plugin reads session settings from it when present). */
    settings?: SettingsService;
  }
}

/**
 * The setup plugin's public surface: its event names and payloads, and its container keys (declared
 * type-only), so `scope.setup` and `scope.settingsCatalogue` are typed in route handlers (`settings` is the kernel's).
 */
import type { SetupService } from './setup-service.js';
import type { SettingsRegistry } from './settings-registry.js';

export type { SettingsService } from '../../kernel/sdk.js';
export type { SetupService } from './setup-service.js';
export type { SettingsRegistry, SettingDeclaration, SettingDefinition } from './settings-registry.js';
export type { SettingGroup, SettingMeta, SettingType } from './settings-catalogue.js';

/** Setup completed (the first admin exists; the instance is ready), however it was completed: the API, the setup page or headless. */
export const SETUP_COMPLETED = 'setup:completed';

export interface SetupCompletedEvent {
  /** The first admin's user id. */
  adminId: string;
  /** When setup was marked ready (epoch ms). */
  completedAt: number;
}

declare module '../../kernel/http/route-table.js' {
  interface ContainerServices {
    setup: SetupService;
    /**
     * Every setting GET/PATCH /api/settings knows. A plugin declares its own in register() or boot():
     * `optional(container.cradle, 'settingsCatalogue')?.declare('<plugin id>', {key, type, default, group, label, description, ...})`;
     * it is then listed, validated and stored like the seeded ones (a row only once someone sets it).
     */
    settingsCatalogue?: SettingsRegistry;
  }
}

import {
  SETTING_CHANGED,
  type BusEvent,
  type FollowOptions,
  type Followed,
  type Logger,
  type SettingChangedEvent,
} from '../../kernel/sdk.js';
import type { SettingsService } from '../setup/public.js';

export const MAINTENANCE_SETTING = 'MAINTENANCE_MODE';
const SITE_NAME_SETTING = 'SITE_NAME';
/** Declared by this plugin (the settings registry): a note for visitors on the maintenance page. */
export const MESSAGE_SETTING = 'MAINTENANCE_MESSAGE';
const KEYS = new Set([MAINTENANCE_SETTING, SITE_NAME_SETTING, MESSAGE_SETTING]);

type Settings = Pick<SettingsService, 'get' | 'valuesOf'>;

/** The copy: the tenants in maintenance, and the site names and messages for the page. */
interface FlagsCopy {
  on: Set<string>;
  siteNames: Map<string, string>;
  messages: Map<string, string>;
}

const EMPTY: FlagsCopy = { on: new Set(), siteNames: new Map(), messages: new Map() };

const texts = (values: Map<string, unknown>) =>
  new Map([...values].filter(([, v]) => typeof v === 'string' && v.trim()).map(([t, v]) => [t, String(v).trim()]));

/** Reads the three settings of every tenant (one query each). */
async function loadFlags(settings: Settings | undefined): Promise<FlagsCopy> {
  if (!settings) return EMPTY;
  const [modes, names, messages] = await Promise.all([
    settings.valuesOf(MAINTENANCE_SETTING),
    settings.valuesOf(SITE_NAME_SETTING),
    settings.valuesOf(MESSAGE_SETTING),
  ]);
  const on = new Set([...modes].filter(([, v]) => v === true).map(([tenant]) => tenant));
  return { on, siteNames: texts(names), messages: texts(messages) };
}

/** One setting's new value applied to a copy (a new copy: what a re-read holds is never changed in place). */
function withSetting(copy: FlagsCopy, tenantId: string, key: string, value: unknown): FlagsCopy {
  if (key === MAINTENANCE_SETTING) {
    const on = new Set(copy.on);
    if (value === true) on.add(tenantId);
    else on.delete(tenantId);
    return { ...copy, on };
  }
  const field = key === SITE_NAME_SETTING ? 'siteNames' : 'messages';
  const map = new Map(copy[field]);
  if (typeof value === 'string' && value.trim()) map.set(tenantId, value.trim());
  else map.delete(tenantId);
  return { ...copy, [field]: map };
}

/**
 * MAINTENANCE_MODE (and SITE_NAME and the message, for the page) per tenant, in memory: a followed copy
 * (kernel/follow.ts) loaded at boot, updated by the SETTING_CHANGED events of every instance (Redis
 * pub/sub when configured), and re-read every `refreshSeconds` as a backstop for writes that bypass the
 * settings service (config sync, restore). Requests never read the database for it.
 */
export class MaintenanceFlags {
  private readonly copy: Followed<FlagsCopy>;

  constructor(
    follow: (options: FollowOptions<FlagsCopy>) => Followed<FlagsCopy>,
    settings: () => Settings | undefined,
    logger: Logger,
    refreshSeconds: number,
  ) {
    this.copy = follow({
      name: 'maintenance mode',
      load: () => loadFlags(settings()),
      on: [SETTING_CHANGED],
      refreshMs: refreshSeconds * 1000,
      initial: EMPTY,
      apply: async (copy, event: BusEvent<SettingChangedEvent>) => {
        const e = event.payload;
        if (!e || typeof e.tenantId !== 'string' || !KEYS.has(e.key)) return copy;
        const value = 'value' in e ? e.value : await settings()?.get(e.key, e.tenantId);
        const next = withSetting(copy, e.tenantId, e.key, value);
        if (e.key === MAINTENANCE_SETTING) logger.info({ tenantId: e.tenantId, on: next.on.has(e.tenantId) }, 'maintenance mode switched');
        return next;
      },
    });
  }

  /** Settles when the first read is done (a failed one leaves maintenance off and is logged). */
  async ready(): Promise<void> {
    await this.copy.ready();
  }

  /** Reads the settings again (what the backstop timer does). */
  refresh(): Promise<void> {
    return this.copy.refresh();
  }

  isOn(tenantId: string): boolean {
    return this.copy.current().on.has(tenantId);
  }

  siteName(tenantId: string): string | undefined {
    return this.copy.current().siteNames.get(tenantId);
  }

  message(tenantId: string): string | undefined {
    return this.copy.current().messages.get(tenantId);
  }
}

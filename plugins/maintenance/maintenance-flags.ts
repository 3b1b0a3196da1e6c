import { EVENTS_RESYNC, type Logger } from '../../kernel/sdk.js';
import { SETTING_CHANGED, type SettingChangedEvent, type SettingsService } from '../setup/public.js';

export const MAINTENANCE_SETTING = 'MAINTENANCE_MODE';
const SITE_NAME_SETTING = 'SITE_NAME';
/** Declared by this plugin (the settings registry): a note for visitors on the maintenance page. */
export const MESSAGE_SETTING = 'MAINTENANCE_MESSAGE';
const KEYS = new Set([MAINTENANCE_SETTING, SITE_NAME_SETTING, MESSAGE_SETTING]);

type Settings = Pick<SettingsService, 'get' | 'valuesOf'>;
interface Bus {
  subscribe(name: string, handler: (event: { payload: unknown }) => void | Promise<void>): () => void;
}

/**
 * MAINTENANCE_MODE (and SITE_NAME, for the page) per tenant, in memory: loaded at boot, updated by the
 * SETTING_CHANGED events of every instance (Redis pub/sub when configured), and re-read every
 * `refreshSeconds` as a backstop for writes that bypass the settings service (config sync, restore).
 * Requests never read the database for it.
 */
export class MaintenanceFlags {
  private on = new Set<string>();
  private siteNames = new Map<string, string>();
  private messages = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private offResync: (() => void) | null = null;
  /** Counts the changes applied from events; a re-read that ran across one is dropped. */
  private generation = 0;

  constructor(
    private readonly settings: () => Settings | undefined,
    private readonly logger: Logger,
  ) {}

  isOn(tenantId: string): boolean {
    return this.on.has(tenantId);
  }

  siteName(tenantId: string): string | undefined {
    return this.siteNames.get(tenantId);
  }

  message(tenantId: string): string | undefined {
    return this.messages.get(tenantId);
  }

  private apply(tenantId: string, key: string, value: unknown): void {
    this.generation++;
    if (key === MAINTENANCE_SETTING) {
      if (value === true) this.on.add(tenantId);
      else this.on.delete(tenantId);
    } else {
      const map = key === SITE_NAME_SETTING ? this.siteNames : this.messages;
      if (typeof value === 'string' && value.trim()) map.set(tenantId, value.trim());
      else map.delete(tenantId);
    }
  }

  /** Reads the three settings of every tenant (one query each). */
  async load(): Promise<void> {
    const settings = this.settings();
    if (!settings) return;
    const generation = this.generation;
    const [modes, names, messages] = await Promise.all([
      settings.valuesOf(MAINTENANCE_SETTING),
      settings.valuesOf(SITE_NAME_SETTING),
      settings.valuesOf(MESSAGE_SETTING),
    ]);
    // A change announced while this read ran is already applied and may be newer than the read: keep it.
    if (generation !== this.generation) return;
    this.on = new Set([...modes].filter(([, v]) => v === true).map(([tenant]) => tenant));
    const texts = (values: Map<string, unknown>) =>
      new Map([...values].filter(([, v]) => typeof v === 'string' && v.trim()).map(([t, v]) => [t, String(v).trim()]));
    this.siteNames = texts(names);
    this.messages = texts(messages);
  }

  async connect(events: Bus, refreshSeconds: number): Promise<void> {
    this.unsubscribe = events.subscribe(SETTING_CHANGED, async (event) => {
      const e = event.payload as SettingChangedEvent;
      if (!e || typeof e.tenantId !== 'string' || !KEYS.has(e.key)) return;
      const value = 'value' in e ? e.value : await this.settings()?.get(e.key, e.tenantId);
      this.apply(e.tenantId, e.key, value);
      if (e.key === MAINTENANCE_SETTING) this.logger.info({ tenantId: e.tenantId, on: this.isOn(e.tenantId) }, 'maintenance mode switched');
    });
    // Back after a loss of the other instances' events: changes announced meanwhile were missed.
    this.offResync = events.subscribe(EVENTS_RESYNC, () =>
      this.load().catch((err) => this.logger.warn({ err }, 'maintenance mode re-read after the event bus reconnected failed')),
    );
    await this.load().catch((err) => this.logger.warn({ err }, 'maintenance mode setting unreadable; assuming off'));
    if (refreshSeconds > 0) {
      this.timer = setInterval(
        () => void this.load().catch((err) => this.logger.warn({ err }, 'maintenance mode refresh failed')),
        refreshSeconds * 1000,
      );
      this.timer.unref();
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.offResync?.();
    this.offResync = null;
  }
}

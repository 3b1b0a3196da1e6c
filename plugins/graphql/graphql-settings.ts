import { EVENTS_RESYNC, type Logger } from '../../kernel/sdk.js';
import { SETTING_CHANGED, type SettingChangedEvent, type SettingsService } from '../setup/public.js';
import type { GraphqlOptions } from './options.js';

/** The System Settings of the GraphQL limits, and the bounds plugins.options.graphql accepts for them. */
export const LIMIT_SETTINGS = {
  GRAPHQL_MAX_DEPTH: { option: 'maxDepth', min: 2, max: 50 },
  GRAPHQL_MAX_COST: { option: 'maxCost', min: 10, max: 1_000_000 },
} as const;
type LimitSetting = keyof typeof LIMIT_SETTINGS;
export type GraphqlLimits = Pick<GraphqlOptions, 'maxDepth' | 'maxCost'>;

interface Bus {
  subscribe(name: string, handler: (event: { payload: unknown }) => void | Promise<void>): () => void;
}

const valid = (key: LimitSetting, value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= LIMIT_SETTINGS[key].min && value <= LIMIT_SETTINGS[key].max;

/**
 * GRAPHQL_MAX_DEPTH and GRAPHQL_MAX_COST per tenant, kept in memory (operations are checked
 * synchronously): loaded at boot, then following SETTING_CHANGED from every instance. A limit set in
 * plugins.options.graphql wins; an absent or out-of-bounds setting leaves the option's default.
 */
export class GraphqlSettings {
  private readonly values = new Map<LimitSetting, Map<string, number>>();
  private unsubscribe: (() => void) | null = null;
  private offResync: (() => void) | null = null;

  constructor(
    private readonly options: GraphqlOptions,
    /** Options the operator configured (they win over the settings). */
    private readonly configured: ReadonlySet<string>,
    private readonly settings: () => Pick<SettingsService, 'get' | 'valuesOf'> | undefined,
    private readonly logger: Logger,
  ) {}

  limits(tenantId: string): GraphqlLimits {
    const pick = (key: LimitSetting): number => {
      const option = LIMIT_SETTINGS[key].option;
      if (this.configured.has(option)) return this.options[option];
      return this.values.get(key)?.get(tenantId) ?? this.options[option];
    };
    return { maxDepth: pick('GRAPHQL_MAX_DEPTH'), maxCost: pick('GRAPHQL_MAX_COST') };
  }

  private apply(key: LimitSetting, tenantId: string, value: unknown): void {
    const byTenant = this.values.get(key) ?? new Map<string, number>();
    if (valid(key, value)) byTenant.set(tenantId, value);
    else byTenant.delete(tenantId);
    this.values.set(key, byTenant);
  }

  async connect(events: Bus): Promise<void> {
    this.unsubscribe = events.subscribe(SETTING_CHANGED, async (event) => {
      const e = event.payload as SettingChangedEvent;
      if (!e || typeof e.tenantId !== 'string' || !(e.key in LIMIT_SETTINGS)) return;
      const key = e.key as LimitSetting;
      this.apply(key, e.tenantId, 'value' in e ? e.value : await this.settings()?.get(key, e.tenantId));
    });
    // Back after a loss of the other instances' events: changes announced meanwhile were missed.
    this.offResync = events.subscribe(EVENTS_RESYNC, () => this.load());
    await this.load();
  }

  /** Reads both limits of every tenant (one query each). */
  private async load(): Promise<void> {
    const settings = this.settings();
    if (!settings) return;
    for (const key of Object.keys(LIMIT_SETTINGS) as LimitSetting[]) {
      const all = await settings.valuesOf(key).catch((err) => {
        this.logger.warn({ err, setting: key }, 'GraphQL limit setting unreadable; using the option');
        return null;
      });
      if (!all) continue;
      const byTenant = new Map<string, number>();
      this.values.set(key, byTenant);
      for (const [tenantId, value] of all) this.apply(key, tenantId, value);
    }
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.offResync?.();
    this.offResync = null;
  }
}

import {
  SETTING_CHANGED,
  type BusEvent,
  type Followed,
  type PluginBootContext,
  type Logger,
  type SettingChangedEvent,
} from '../../kernel/sdk.js';
import type { SettingsService } from '../setup/public.js';
import type { GraphqlOptions } from './options.js';

/** The System Settings of the GraphQL limits, and the bounds plugins.options.graphql accepts for them. */
export const LIMIT_SETTINGS = {
  GRAPHQL_MAX_DEPTH: { option: 'maxDepth', min: 2, max: 50 },
  GRAPHQL_MAX_COST: { option: 'maxCost', min: 10, max: 1_000_000 },
} as const;
type LimitSetting = keyof typeof LIMIT_SETTINGS;
export type GraphqlLimits = Pick<GraphqlOptions, 'maxDepth' | 'maxCost'>;

const valid = (key: LimitSetting, value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= LIMIT_SETTINGS[key].min && value <= LIMIT_SETTINGS[key].max;

/**
 * GRAPHQL_MAX_DEPTH and GRAPHQL_MAX_COST per tenant, kept in memory (operations are checked
 * synchronously): loaded at boot, then following SETTING_CHANGED from every instance. A limit set in
 * plugins.options.graphql wins; an absent or out-of-bounds setting leaves the option's default.
 */
type Limits = Map<LimitSetting, Map<string, number>>;

/** One setting's value applied to a copy of the limits (a new copy). */
function withLimit(copy: Limits, key: LimitSetting, tenantId: string, value: unknown): Limits {
  const byTenant = new Map(copy.get(key));
  if (valid(key, value)) byTenant.set(tenantId, value);
  else byTenant.delete(tenantId);
  return new Map(copy).set(key, byTenant);
}

export class GraphqlSettings {
  private readonly copy: Followed<Limits>;

  constructor(
    private readonly options: GraphqlOptions,
    /** Options the operator configured (they win over the settings). */
    private readonly configured: ReadonlySet<string>,
    private readonly settings: () => Pick<SettingsService, 'get' | 'valuesOf'> | undefined,
    private readonly logger: Logger,
    follow: PluginBootContext['follow'],
  ) {
    this.copy = follow({
      name: 'GraphQL limits',
      load: () => this.load(),
      on: [SETTING_CHANGED],
      initial: new Map(),
      apply: async (copy, event: BusEvent<SettingChangedEvent>) => {
        const e = event.payload;
        if (!e || typeof e.tenantId !== 'string' || !(e.key in LIMIT_SETTINGS)) return copy;
        const key = e.key as LimitSetting;
        return withLimit(copy, key, e.tenantId, 'value' in e ? e.value : await this.settings()?.get(key, e.tenantId));
      },
    });
  }

  /** Settles when the first read is done. */
  async ready(): Promise<void> {
    await this.copy.ready();
  }

  limits(tenantId: string): GraphqlLimits {
    const values = this.copy.current();
    const pick = (key: LimitSetting): number => {
      const option = LIMIT_SETTINGS[key].option;
      if (this.configured.has(option)) return this.options[option];
      return values.get(key)?.get(tenantId) ?? this.options[option];
    };
    return { maxDepth: pick('GRAPHQL_MAX_DEPTH'), maxCost: pick('GRAPHQL_MAX_COST') };
  }

  /** Reads both limits of every tenant (one query each); a limit that cannot be read keeps what was held. */
  private async load(): Promise<Limits> {
    let copy = this.copy?.current() ?? new Map();
    const settings = this.settings();
    if (!settings) return copy;
    for (const key of Object.keys(LIMIT_SETTINGS) as LimitSetting[]) {
      const all = await settings.valuesOf(key).catch((err) => {
        this.logger.warn({ err, setting: key }, 'GraphQL limit setting unreadable; using the option');
        return null;
      });
      if (!all) continue;
      copy = new Map(copy).set(key, new Map([...all].filter(([, value]) => valid(key, value)) as Array<[string, number]>));
    }
    return copy;
  }
}

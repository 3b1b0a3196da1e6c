import { randomUUID } from 'node:crypto';
import { UniqueConstraintError, type Sequelize } from 'sequelize';
import { type CacheService, ConflictError, type Logger, modelsOf } from '../../kernel/sdk.js';
import { sanitiseCss } from './css-sanitiser.js';
import { normaliseHex } from './palette.js';
import { ThemeNotFoundError } from './errors.js';
import { ThemeRecord } from './models/theme-record.js';
import { parsePreset, type ImportWarning } from './preset-import.js';
import type { BundledPreset } from './presets.js';
import { buildConfig, defaultAdminTheme, mergeAdminTheme, readConfig, type Branding, type ThemeConfig } from './theme-config.js';
import type { AdminThemeInput, BrandingInput, StoredAdminTheme, ThemeSettingsInput } from './theme-schemas.js';

export const CACHE_CATEGORY = 'themes';
export const BRANDING_KEY = 'public-branding';
/** Spec: theme public branding is cached 10 minutes per tenant. */
export const BRANDING_TTL_SECONDS = 600;
const NULL_BRANDING: Branding = { siteName: null, logoUrl: null, accentColor: null };
const TENANT_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

export interface ThemeSummary {
  id: string;
  name: string;
  isActive: boolean;
  isDefault: boolean;
  density: StoredAdminTheme['density'];
  variant: StoredAdminTheme['variant'];
  updatedAt: string;
}

export interface ThemeView extends ThemeSummary {
  presetSource: string | null;
  createdAt: string;
  config: Omit<ThemeConfig, 'adminTheme'> & { adminTheme: StoredAdminTheme };
}

/** What the themes plugin uses of the auth plugin (container key `tenants`). */
export interface TenantResolver {
  fromHostname(hostname: string): Promise<string>;
}

export function storedAdminTheme(row: ThemeRecord, config = readConfig(row.config)): StoredAdminTheme {
  return { ...config.adminTheme, presetSource: row.preset_source, updatedAt: new Date(Number(row.updated_at)).toISOString() };
}

export function summaryOf(row: ThemeRecord): ThemeSummary {
  const config = readConfig(row.config);
  return {
    id: row.id, name: row.name, isActive: Boolean(row.is_active), isDefault: Boolean(row.is_default),
    density: config.adminTheme.density, variant: config.adminTheme.variant, updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

export function viewOf(row: ThemeRecord): ThemeView {
  const config = readConfig(row.config);
  return {
    ...summaryOf(row), presetSource: row.preset_source, createdAt: new Date(Number(row.created_at)).toISOString(),
    config: { ...config, adminTheme: storedAdminTheme(row, config) },
  };
}

/**
 * Themes per tenant: at most one active and one default each; the first theme of a tenant becomes
 * both. Every write drops the tenant's cached public branding (shared cache: on every instance).
 */
export class ThemesService {
  private readonly models: { ThemeRecord: typeof ThemeRecord };

  constructor(
    private readonly sequelize: Sequelize,
    private readonly cache: () => CacheService | null,
    private readonly logger: Logger,
    private readonly tenants: () => TenantResolver | null,
    private readonly presets: () => BundledPreset[],
  ) {
    this.models = modelsOf(sequelize.models, { ThemeRecord });
  }

  async list(tenantId: string): Promise<ThemeSummary[]> {
    const rows = await this.models.ThemeRecord.findAll({ where: { tenant_id: tenantId }, order: [['created_at', 'ASC'], ['name', 'ASC']] });
    return rows.map(summaryOf);
  }

  async find(tenantId: string, id: string): Promise<ThemeRecord> {
    const row = await this.models.ThemeRecord.findOne({ where: { id, tenant_id: tenantId } });
    if (!row) throw new ThemeNotFoundError(`No theme '${id}' in your tenant`);
    return row;
  }

  active(tenantId: string): Promise<ThemeRecord | null> {
    return this.models.ThemeRecord.findOne({ where: { tenant_id: tenantId, is_active: true } });
  }

  async current(tenantId: string): Promise<ThemeView> {
    const row = await this.active(tenantId);
    if (!row) throw new ThemeNotFoundError('No active theme: create, import or activate one');
    return viewOf(row);
  }

  /** The active theme's admin config, or {} when the tenant has no active theme. */
  async adminTheme(tenantId: string): Promise<StoredAdminTheme | Record<string, never>> {
    const row = await this.active(tenantId);
    return row ? storedAdminTheme(row) : {};
  }

  /** Saves a partial admin theme on the active theme (creating an active "Default" theme when there is none). */
  async saveAdminTheme(tenantId: string, input: AdminThemeInput): Promise<{ adminTheme: StoredAdminTheme; removed: string[] }> {
    const sanitised = input.customCss === undefined ? undefined : sanitiseCss(input.customCss);
    let row = await this.active(tenantId);
    if (!row) {
      const created = await this.insert(tenantId, await this.freeName(tenantId, 'Default'), buildConfig({ adminTheme: input }, sanitised?.css ?? ''), null);
      if (!created.is_active) await this.activate(tenantId, created.id);
      return { adminTheme: storedAdminTheme(created), removed: sanitised?.removed ?? [] };
    }
    const config = readConfig(row.config);
    config.adminTheme = mergeAdminTheme(config.adminTheme, input, sanitised?.css);
    row = await this.write(row, config);
    return { adminTheme: storedAdminTheme(row), removed: sanitised?.removed ?? [] };
  }

  /** Puts the active theme's admin config back to the defaults (palette, colours and branding stay). */
  async resetAdminTheme(tenantId: string): Promise<StoredAdminTheme> {
    const row = await this.active(tenantId);
    if (!row) throw new ThemeNotFoundError('No active theme to reset');
    const config = readConfig(row.config);
    config.adminTheme = defaultAdminTheme();
    return storedAdminTheme(await this.write(row, config));
  }

  async create(tenantId: string, name: string, settings: ThemeSettingsInput = {}): Promise<{ theme: ThemeView; removed: string[] }> {
    await this.assertNameFree(tenantId, name);
    const { css, removed } = sanitiseCss(settings.adminTheme?.customCss ?? '');
    const row = await this.insert(tenantId, name, buildConfig(settings, css), null);
    return { theme: viewOf(row), removed };
  }

  async clone(tenantId: string, sourceId: string, name: string): Promise<ThemeView> {
    const source = await this.find(tenantId, sourceId);
    await this.assertNameFree(tenantId, name);
    return viewOf(await this.insert(tenantId, name, readConfig(source.config), source.preset_source));
  }

  activate(tenantId: string, id: string): Promise<ThemeView> {
    return this.markOnly(tenantId, id, 'is_active');
  }

  setDefault(tenantId: string, id: string): Promise<ThemeView> {
    return this.markOnly(tenantId, id, 'is_default');
  }

  /** Makes the theme the tenant's one active (or default) theme, in one transaction. */
  private async markOnly(tenantId: string, id: string, flag: 'is_active' | 'is_default'): Promise<ThemeView> {
    await this.find(tenantId, id);
    await this.sequelize.transaction(async (transaction) => {
      await this.models.ThemeRecord.update({ [flag]: false }, { where: { tenant_id: tenantId, [flag]: true }, transaction });
      await this.models.ThemeRecord.update({ [flag]: true, updated_at: Date.now() }, { where: { tenant_id: tenantId, id }, transaction });
    });
    await this.changed(tenantId);
    return viewOf(await this.find(tenantId, id));
  }

  async delete(tenantId: string, id: string): Promise<{ deleted: true; id: string }> {
    const row = await this.find(tenantId, id);
    if (row.is_active) throw new ConflictError(`'${row.name}' is the active theme and cannot be deleted; activate another theme first`);
    if (row.is_default) throw new ConflictError(`'${row.name}' is the default theme and cannot be deleted; make another theme the default first`);
    // Conditional: a theme activated meanwhile by another request stays.
    const deleted = await this.models.ThemeRecord.destroy({ where: { id, tenant_id: tenantId, is_active: false, is_default: false } });
    if (!deleted) throw new ConflictError(`'${row.name}' became active or default meanwhile and was not deleted`);
    await this.changed(tenantId);
    return { deleted: true, id };
  }

  /** Replaces the theme's customCss only (sanitised). */
  async updateCss(tenantId: string, id: string, customCss: string): Promise<{ theme: ThemeView; removed: string[] }> {
    const row = await this.find(tenantId, id);
    const { css, removed } = sanitiseCss(customCss);
    const config = readConfig(row.config);
    config.adminTheme = { ...config.adminTheme, customCss: css };
    return { theme: viewOf(await this.write(row, config)), removed };
  }

  /** Changes the theme's public branding (the fields given; null clears one). */
  async updateBranding(tenantId: string, id: string, input: BrandingInput): Promise<ThemeView> {
    const row = await this.find(tenantId, id);
    const config = readConfig(row.config);
    const next = { ...config.branding };
    if (input.siteName !== undefined) next.siteName = input.siteName;
    if (input.logoUrl !== undefined) next.logoUrl = input.logoUrl;
    if (input.accentColor !== undefined) next.accentColor = input.accentColor === null ? null : normaliseHex(input.accentColor);
    config.branding = next;
    return viewOf(await this.write(row, config));
  }

  /** Creates a theme from a preset (theme JSON or shorthand palette); a taken name gets " (2)", " (3)"... */
  async importPreset(tenantId: string, presetJson: string): Promise<{ theme: ThemeView; warnings: ImportWarning[] }> {
    const preset = parsePreset(presetJson);
    const name = await this.freeName(tenantId, preset.name ?? 'Imported theme');
    const row = await this.insert(tenantId, name, preset.config, preset.presetSource);
    return { theme: viewOf(row), warnings: preset.warnings };
  }

  /** Setup's seed step: the bundled default theme, active and default, unless the tenant has themes already. */
  async seedDefault(tenantId = 'default'): Promise<ThemeView | null> {
    if (await this.models.ThemeRecord.count({ where: { tenant_id: tenantId } })) return null;
    const bundled = this.presets().find((p) => p.id === 'default');
    const preset = bundled ? parsePreset(bundled.json) : null;
    try {
      const row = await this.insert(tenantId, preset?.name ?? 'Default', preset?.config ?? buildConfig({}), preset?.presetSource ?? 'bundled:default');
      return viewOf(row);
    } catch (err) {
      if (err instanceof ConflictError) return null; // seeded concurrently
      throw err;
    }
  }

  /**
   * Public branding of the tenant named by tenantId, else by hostname: {siteName, logoUrl, accentColor}
   * of its active theme (accentColor falls back to primary 500). All null when no tenant resolves, the
   * tenant is `default`, it has no active theme, or anything fails. Cached 10 minutes per tenant.
   */
  /** The tenant a public request names (tenantId, else its hostname); null for none or the default tenant. */
  async publicTenant(query: { tenantId?: string; hostname?: string }): Promise<string | null> {
    let tenantId = query.tenantId?.trim() || null;
    if (!tenantId) {
      const hostname = query.hostname?.trim().toLowerCase();
      const tenants = this.tenants();
      if (!hostname || !tenants) return null;
      tenantId = await tenants.fromHostname(hostname);
    }
    return !tenantId || tenantId === 'default' || !TENANT_ID.test(tenantId) ? null : tenantId;
  }

  async publicBranding(query: { tenantId?: string; hostname?: string }): Promise<Branding> {
    try {
      const tenantId = await this.publicTenant(query);
      if (!tenantId) return { ...NULL_BRANDING };
      const cache = this.cache();
      const hit = await cache?.get<Branding>(CACHE_CATEGORY, BRANDING_KEY, { tenant: tenantId }).catch(() => undefined);
      if (hit) return hit;
      const row = await this.active(tenantId);
      let branding = { ...NULL_BRANDING };
      if (row) {
        const config = readConfig(row.config);
        branding = { siteName: config.branding.siteName, logoUrl: config.branding.logoUrl, accentColor: config.branding.accentColor ?? config.palette.primary['500'] };
      }
      await cache?.set(CACHE_CATEGORY, BRANDING_KEY, branding, { tenant: tenantId, ttlSeconds: BRANDING_TTL_SECONDS }).catch(() => undefined);
      return branding;
    } catch (err) {
      this.logger.warn({ err }, 'public theme branding failed; answering nulls');
      return { ...NULL_BRANDING };
    }
  }

  private async names(tenantId: string): Promise<Set<string>> {
    const rows = await this.models.ThemeRecord.findAll({ where: { tenant_id: tenantId }, attributes: ['name'] });
    return new Set(rows.map((r) => r.name.toLowerCase()));
  }

  private async assertNameFree(tenantId: string, name: string): Promise<void> {
    if ((await this.names(tenantId)).has(name.toLowerCase())) throw new ConflictError(`A theme named '${name}' already exists`);
  }

  private async freeName(tenantId: string, wanted: string): Promise<string> {
    const taken = await this.names(tenantId);
    if (!taken.has(wanted.toLowerCase())) return wanted;
    for (let n = 2; ; n++) {
      const candidate = `${wanted.slice(0, 90)} (${n})`;
      if (!taken.has(candidate.toLowerCase())) return candidate;
    }
  }

  /** Inserts a theme; the tenant's first theme becomes active and default. */
  private async insert(tenantId: string, name: string, config: ThemeConfig, presetSource: string | null): Promise<ThemeRecord> {
    const now = Date.now();
    const first = (await this.models.ThemeRecord.count({ where: { tenant_id: tenantId } })) === 0;
    try {
      const row = await this.models.ThemeRecord.create({
        id: randomUUID(), tenant_id: tenantId, name, is_active: first, is_default: first, config: JSON.stringify(config),
        preset_source: presetSource, created_at: now, updated_at: now,
      });
      await this.changed(tenantId);
      return row;
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw new ConflictError(`A theme named '${name}' already exists`);
      throw err;
    }
  }

  private async write(row: ThemeRecord, config: ThemeConfig): Promise<ThemeRecord> {
    await row.update({ config: JSON.stringify(config), updated_at: Math.max(Date.now(), Number(row.updated_at) + 1) });
    await this.changed(row.tenant_id);
    return row;
  }

  /**
   * Drops the tenant's cached public branding (every instance shares the cache): after any write to a
   * theme, also by other plugins that write theme rows in their own transaction (configuration promotion).
   */
  async changed(tenantId: string): Promise<void> {
    if (!TENANT_ID.test(tenantId)) return;
    try {
      await this.cache()?.delete(CACHE_CATEGORY, BRANDING_KEY, { tenant: tenantId });
    } catch (err) {
      this.logger.warn({ err, tenantId }, 'could not drop the cached theme branding');
    }
  }
}

import { contrastRatio, neutralOf, normaliseHex, readableOn, rotateHue, shadeLadder, SHADES, type ShadeLadder } from './palette.js';
import {
  FAMILIES, FEATURE_KEYS, LOCK_KEYS, SEMANTIC_COLORS,
  type AdminThemeInput, type ShorthandPalette, type StoredAdminTheme, type ThemeSettingsInput,
} from './theme-schemas.js';

export type Family = (typeof FAMILIES)[number];
export type SemanticColor = (typeof SEMANTIC_COLORS)[number];
export type AdminThemeFields = Omit<StoredAdminTheme, 'presetSource' | 'updatedAt'>;

export interface Branding {
  siteName: string | null;
  logoUrl: string | null;
  accentColor: string | null;
}

/** What a theme row stores in its `config` column. */
export interface ThemeConfig {
  adminTheme: AdminThemeFields;
  palette: Record<Family, ShadeLadder>;
  colors: Record<SemanticColor, string>;
  branding: Branding;
}

export interface ContrastWarning {
  code: 'LOW_CONTRAST';
  pair: string;
  foreground: string;
  background: string;
  ratio: number;
  required: number;
  message: string;
}

/** Seeds of the families a theme or shorthand leaves out. */
const DEFAULT_SEEDS: Record<Exclude<Family, 'neutral' | 'tertiary'>, string> = {
  primary: '#2563eb', secondary: '#64748b', success: '#16a34a', warning: '#d97706', error: '#dc2626',
};

export function defaultAdminTheme(): AdminThemeFields {
  return {
    density: 'cozy', variant: 'bordered',
    features: Object.fromEntries(FEATURE_KEYS.map((k) => [k, k !== 'brandedLogin'])) as AdminThemeFields['features'],
    customCss: '', layoutState: {},
    lockedSettings: Object.fromEntries(LOCK_KEYS.map((k) => [k, false])) as AdminThemeFields['lockedSettings'],
    reducedMotion: false, highContrast: false,
  };
}

/** Applies a partial admin theme: features and locks merge key by key, layoutState is replaced. */
export function mergeAdminTheme(base: AdminThemeFields, input: AdminThemeInput, customCss?: string): AdminThemeFields {
  return {
    density: input.density ?? base.density,
    variant: input.variant ?? base.variant,
    features: { ...base.features, ...stripUndefined(input.features) },
    customCss: customCss ?? base.customCss,
    layoutState: input.layoutState ?? base.layoutState,
    lockedSettings: { ...base.lockedSettings, ...stripUndefined(input.lockedSettings) },
    reducedMotion: input.reducedMotion ?? base.reducedMotion,
    highContrast: input.highContrast ?? base.highContrast,
  };
}

function stripUndefined<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function ladderOf(value: string | Record<string, string>): ShadeLadder {
  if (typeof value === 'string') return shadeLadder(value);
  return Object.fromEntries(SHADES.map((s) => [s, normaliseHex(value[s]!)])) as ShadeLadder;
}

/**
 * A complete theme config from theme settings (full theme JSON without its name): each palette
 * family from its seed or shades (missing ones from the defaults: tertiary is the primary turned 90°
 * in OKLCH, neutral a near-grey of the primary's hue); semantic colours given or derived from the
 * palette; the admin theme's defaults under what is given. customCss must already be sanitised.
 */
export function buildConfig(settings: ThemeSettingsInput, customCss = ''): ThemeConfig {
  const given = settings.palette ?? {};
  const primarySeed = typeof given.primary === 'string' ? given.primary : given.primary?.['500'] ?? DEFAULT_SEEDS.primary;
  const palette = {
    primary: ladderOf(given.primary ?? DEFAULT_SEEDS.primary),
    secondary: ladderOf(given.secondary ?? DEFAULT_SEEDS.secondary),
    tertiary: ladderOf(given.tertiary ?? rotateHue(primarySeed, 90)),
    success: ladderOf(given.success ?? DEFAULT_SEEDS.success),
    warning: ladderOf(given.warning ?? DEFAULT_SEEDS.warning),
    error: ladderOf(given.error ?? DEFAULT_SEEDS.error),
    neutral: ladderOf(given.neutral ?? neutralOf(primarySeed)),
  };
  const c = settings.colors ?? {};
  const colors: Record<SemanticColor, string> = {
    background: normaliseHex(c.background ?? palette.neutral['50']),
    surface: normaliseHex(c.surface ?? '#ffffff'),
    text: normaliseHex(c.text ?? palette.neutral['900']),
    textMuted: normaliseHex(c.textMuted ?? palette.neutral['600']),
    border: normaliseHex(c.border ?? palette.neutral['200']),
    onPrimary: normaliseHex(c.onPrimary ?? readableOn(palette.primary['600'])),
  };
  const b = settings.branding ?? {};
  return {
    adminTheme: mergeAdminTheme(defaultAdminTheme(), settings.adminTheme ?? {}, customCss),
    palette,
    colors,
    branding: { siteName: b.siteName ?? null, logoUrl: b.logoUrl ?? null, accentColor: b.accentColor ? normaliseHex(b.accentColor) : null },
  };
}

/** The theme settings a shorthand palette stands for: its seeds as palette families, surface as a colour. */
export function settingsFromShorthand(short: ShorthandPalette): ThemeSettingsInput {
  const { surface, name: _name, ...seeds } = short;
  return { palette: seeds, ...(surface ? { colors: { surface } } : {}) };
}

/** WCAG AA for normal text: 4.5:1. */
export const AA_TEXT = 4.5;

/**
 * The pairs checked against WCAG AA (4.5:1): body text on the page background and on surfaces, muted
 * text on surfaces, button text on primary 600, links (primary 700) and status text (success, warning,
 * error 700) on surfaces.
 */
export function contrastWarnings(config: ThemeConfig): ContrastWarning[] {
  const { colors, palette } = config;
  const pairs: Array<[string, string, string]> = [
    ['text/background', colors.text, colors.background],
    ['text/surface', colors.text, colors.surface],
    ['textMuted/surface', colors.textMuted, colors.surface],
    ['onPrimary/primary-600', colors.onPrimary, palette.primary['600']],
    ['primary-700/surface', palette.primary['700'], colors.surface],
    ['success-700/surface', palette.success['700'], colors.surface],
    ['warning-700/surface', palette.warning['700'], colors.surface],
    ['error-700/surface', palette.error['700'], colors.surface],
  ];
  const warnings: ContrastWarning[] = [];
  for (const [pair, foreground, background] of pairs) {
    const ratio = contrastRatio(foreground, background);
    if (ratio < AA_TEXT) {
      warnings.push({
        code: 'LOW_CONTRAST', pair, foreground, background, ratio, required: AA_TEXT,
        message: `${pair}: contrast ${ratio}:1 is below WCAG AA (${AA_TEXT}:1)`,
      });
    }
  }
  return warnings;
}

/** The settings of an admin theme as a user sees them, after their preferences and the locks. */
export interface EffectiveSettings {
  density: AdminThemeFields['density'];
  variant: AdminThemeFields['variant'];
  reducedMotion: boolean;
  highContrast: boolean;
  layoutState: Record<string, boolean>;
  features: AdminThemeFields['features'];
}

const DENSITY_SCALE = { compact: '0.85', cozy: '1', spacious: '1.2' } as const;

/** The CSS custom properties the admin UI applies on :root. */
export function cssVariables(config: ThemeConfig, settings: EffectiveSettings): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const family of FAMILIES) for (const shade of SHADES) vars[`--color-${family}-${shade}`] = config.palette[family][shade];
  const { colors, palette } = config;
  const high = settings.highContrast;
  vars['--color-background'] = high ? '#ffffff' : colors.background;
  vars['--color-surface'] = high ? '#ffffff' : colors.surface;
  vars['--color-text'] = high ? '#000000' : colors.text;
  vars['--color-text-muted'] = high ? palette.neutral['900'] : colors.textMuted;
  vars['--color-border'] = high ? palette.neutral['700'] : colors.border;
  vars['--color-on-primary'] = colors.onPrimary;
  vars['--color-accent'] = config.branding.accentColor ?? palette.primary['500'];
  vars['--density-scale'] = DENSITY_SCALE[settings.density];
  vars['--card-border-width'] = settings.variant === 'bordered' || high ? '1px' : '0px';
  vars['--card-shadow'] = settings.variant === 'elevated' ? '0 1px 3px rgba(0, 0, 0, 0.12), 0 1px 2px rgba(0, 0, 0, 0.08)' : 'none';
  vars['--motion-duration'] = settings.reducedMotion ? '0ms' : '150ms';
  return vars;
}

let defaultConfig: ThemeConfig | undefined;

/** A stored config read back, with anything missing (older rows, hand edits) filled from the defaults. */
export function readConfig(raw: string): ThemeConfig {
  let parsed: Partial<ThemeConfig> = {};
  try {
    parsed = JSON.parse(raw) as Partial<ThemeConfig>;
  } catch {
    parsed = {};
  }
  const defaults = (defaultConfig ??= buildConfig({}));
  return {
    adminTheme: { ...defaults.adminTheme, ...parsed.adminTheme,
      features: { ...defaults.adminTheme.features, ...parsed.adminTheme?.features },
      lockedSettings: { ...defaults.adminTheme.lockedSettings, ...parsed.adminTheme?.lockedSettings } },
    palette: { ...defaults.palette, ...parsed.palette },
    colors: { ...defaults.colors, ...parsed.colors },
    branding: { ...defaults.branding, ...parsed.branding },
  };
}

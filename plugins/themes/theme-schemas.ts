import { z } from 'zod';
import { HEX, SHADES } from './palette.js';

export const DENSITIES = ['compact', 'cozy', 'spacious'] as const;
export const VARIANTS = ['flat', 'bordered', 'elevated'] as const;
export const FEATURE_KEYS = ['stickyActionBar', 'collapsibleSidebar', 'brandedLogin', 'layoutRegions'] as const;
export const LOCK_KEYS = ['density', 'variant', 'reducedMotion', 'highContrast', 'layoutState'] as const;
export const FAMILIES = ['primary', 'secondary', 'tertiary', 'success', 'warning', 'error', 'neutral'] as const;
export const SEMANTIC_COLORS = ['background', 'surface', 'text', 'textMuted', 'border', 'onPrimary'] as const;
export const MAX_CUSTOM_CSS = 100_000;

export const hexColor = z.string().regex(HEX, 'a hex colour: #rgb or #rrggbb');
/** Region name -> visible (sidebar, header, footer, breadcrumbs, ...). */
export const regionMap = z.record(z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,39}$/, 'a region name (letters, digits, - and _)'), z.boolean())
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 regions');

const features = z.strictObject(Object.fromEntries(FEATURE_KEYS.map((k) => [k, z.boolean().optional()])) as Record<(typeof FEATURE_KEYS)[number], z.ZodOptional<z.ZodBoolean>>);
const lockedSettings = z.strictObject(Object.fromEntries(LOCK_KEYS.map((k) => [k, z.boolean().optional()])) as Record<(typeof LOCK_KEYS)[number], z.ZodOptional<z.ZodBoolean>>);

/** A partial StoredAdminTheme as clients send it (POST /api/theme/admin-theme, theme JSON `adminTheme`). */
export const adminThemeInput = z.strictObject({
  density: z.enum(DENSITIES).optional(),
  variant: z.enum(VARIANTS).optional(),
  features: features.optional(),
  customCss: z.string().max(MAX_CUSTOM_CSS).optional(),
  layoutState: regionMap.optional(),
  lockedSettings: lockedSettings.optional(),
  /** The theme's value of reducedMotion / highContrast for users (and the value a lock enforces). */
  reducedMotion: z.boolean().optional(),
  highContrast: z.boolean().optional(),
}).meta({ id: 'AdminThemeInput' });
export type AdminThemeInput = z.output<typeof adminThemeInput>;

/** StoredAdminTheme with every field present (what the API answers). */
export interface StoredAdminTheme {
  density: (typeof DENSITIES)[number];
  variant: (typeof VARIANTS)[number];
  features: Record<(typeof FEATURE_KEYS)[number], boolean>;
  customCss: string;
  layoutState: Record<string, boolean>;
  lockedSettings: Record<(typeof LOCK_KEYS)[number], boolean>;
  reducedMotion: boolean;
  highContrast: boolean;
  presetSource: string | null;
  updatedAt: string;
}

export const storedAdminThemeSchema = z.object({
  density: z.enum(DENSITIES), variant: z.enum(VARIANTS), features: z.record(z.string(), z.boolean()), customCss: z.string(),
  layoutState: z.record(z.string(), z.boolean()), lockedSettings: z.record(z.string(), z.boolean()), reducedMotion: z.boolean(),
  highContrast: z.boolean(), presetSource: z.string().nullable(), updatedAt: z.string(),
}).meta({ id: 'StoredAdminTheme' });

const shadeLadderInput = z.strictObject(Object.fromEntries(SHADES.map((s) => [s, hexColor])) as Record<(typeof SHADES)[number], typeof hexColor>);
/** A palette family: a seed colour (expanded to 50..950) or all eleven shades. */
const familyInput = z.union([hexColor, shadeLadderInput]);

export const brandingInput = z.strictObject({
  siteName: z.string().min(1).max(191).nullable().optional(),
  logoUrl: z.string().max(2048).regex(/^(https?:\/\/|\/)[^\s<>"']*$/i, 'an http(s) URL or a path starting with /').nullable().optional(),
  accentColor: hexColor.nullable().optional(),
});

/** The full theme JSON (import-preset, and `settings` of POST /api/theme/create without the name). */
export const themeSettingsInput = z.strictObject({
  adminTheme: adminThemeInput.optional(),
  palette: z.strictObject(Object.fromEntries(FAMILIES.map((f) => [f, familyInput.optional()])) as Record<(typeof FAMILIES)[number], z.ZodOptional<typeof familyInput>>).optional(),
  colors: z.strictObject(Object.fromEntries(SEMANTIC_COLORS.map((c) => [c, hexColor.optional()])) as Record<(typeof SEMANTIC_COLORS)[number], z.ZodOptional<typeof hexColor>>).optional(),
  branding: brandingInput.optional(),
}).meta({ id: 'ThemeSettings' });
export type ThemeSettingsInput = z.output<typeof themeSettingsInput>;
export type BrandingInput = z.output<typeof brandingInput>;

export const themeName = z.string().trim().min(1).max(100);

export const fullThemeJson = themeSettingsInput.extend({
  name: themeName,
  description: z.string().max(500).optional(),
  /** Recorded as the theme's presetSource (e.g. "bundled:ocean"); default "theme-json". */
  source: z.string().min(1).max(191).optional(),
});

/** API-DECISIONS: a shorthand palette is {name?, primary, secondary?, tertiary?, success?, warning?, error?, surface?}. */
export const shorthandPalette = z.strictObject({
  name: themeName.optional(),
  primary: hexColor,
  secondary: hexColor.optional(),
  tertiary: hexColor.optional(),
  success: hexColor.optional(),
  warning: hexColor.optional(),
  error: hexColor.optional(),
  surface: hexColor.optional(),
});
export type ShorthandPalette = z.output<typeof shorthandPalette>;

/** Per-user preferences under preferences.theme (null: follow the theme). */
export const userThemePreferences = z.strictObject({
  density: z.enum(DENSITIES).nullable().optional(),
  cardStyle: z.enum(VARIANTS).nullable().optional(),
  reducedMotion: z.boolean().nullable().optional(),
  highContrast: z.boolean().nullable().optional(),
  layoutRegions: regionMap.nullable().optional(),
});
export type UserThemePreferences = z.output<typeof userThemePreferences>;
/** Which lock guards each preference. */
export const PREFERENCE_LOCKS: Record<keyof UserThemePreferences, (typeof LOCK_KEYS)[number]> = {
  density: 'density', cardStyle: 'variant', reducedMotion: 'reducedMotion', highContrast: 'highContrast', layoutRegions: 'layoutState',
};

// Shapes of the themes plugin's answers (plugins/themes/routes.ts).
export interface ThemeSummary { id: string; name: string; isActive: boolean; isDefault: boolean; density: string; variant: string; updatedAt: string }
export interface AdminTheme {
  density: 'compact' | 'cozy' | 'spacious';
  variant: 'flat' | 'bordered' | 'elevated';
  features: Record<string, boolean>;
  customCss: string;
  layoutState: Record<string, boolean>;
  lockedSettings: Record<string, boolean>;
  reducedMotion: boolean;
  highContrast: boolean;
}
export interface ImportWarning { code: 'LOW_CONTRAST' | 'CSS_REMOVED'; message: string; pair?: string; foreground?: string; background?: string; ratio?: number; required?: number; removed?: string[] }
export interface Preset { id: string; name: string; presetJson: string }

export const DENSITIES = [['compact', 'Compact'], ['cozy', 'Cozy'], ['spacious', 'Spacious']] as const;
export const VARIANTS = [['flat', 'Flat'], ['bordered', 'Bordered'], ['elevated', 'Elevated']] as const;
export const FEATURES: Record<string, string> = {
  stickyActionBar: 'Sticky action bar', collapsibleSidebar: 'Collapsible sidebar', brandedLogin: 'Branded sign-in page', layoutRegions: 'Layout regions',
};
export const LOCKS: Record<string, string> = {
  density: 'Density', variant: 'Card style', reducedMotion: 'Reduced motion', highContrast: 'High contrast', layoutState: 'Layout',
};

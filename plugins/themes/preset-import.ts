import type { z } from 'zod';
import { ValidationError } from '../../kernel/sdk.js';
import { sanitiseCss } from './css-sanitiser.js';
import { buildConfig, contrastWarnings, settingsFromShorthand, type ContrastWarning, type ThemeConfig } from './theme-config.js';
import { fullThemeJson, shorthandPalette } from './theme-schemas.js';

export interface CssWarning {
  code: 'CSS_REMOVED';
  removed: string[];
  message: string;
}
export type ImportWarning = ContrastWarning | CssWarning;

export interface ParsedPreset {
  kind: 'shorthand' | 'theme-json';
  name: string | null;
  presetSource: string;
  config: ThemeConfig;
  warnings: ImportWarning[];
}

function issuesOf(error: z.ZodError, prefix: string) {
  return error.issues.map((i) => ({ path: [prefix, ...i.path.map(String)].join('.'), message: i.message }));
}

/**
 * Reads `presetJson`: a shorthand palette (an object with a string `primary`) or a full theme JSON
 * (with `name` and any of adminTheme, palette, colors, branding). Seeds expand to 50..950 ladders,
 * customCss is sanitised, and WCAG AA failures come back as warnings (never a refusal).
 */
export function parsePreset(presetJson: string, field = 'body.presetJson'): ParsedPreset {
  let raw: unknown;
  try {
    raw = JSON.parse(presetJson);
  } catch (err) {
    throw new ValidationError(`presetJson is not valid JSON: ${(err as Error).message}`, [{ path: field, message: 'not valid JSON' }]);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ValidationError('presetJson must be a JSON object: a theme or a shorthand palette', [{ path: field, message: 'expected an object' }]);
  }
  const warnings: ImportWarning[] = [];
  if (typeof (raw as { primary?: unknown }).primary === 'string') {
    const parsed = shorthandPalette.safeParse(raw);
    if (!parsed.success) throw new ValidationError('Invalid shorthand palette', issuesOf(parsed.error, field));
    const config = buildConfig(settingsFromShorthand(parsed.data));
    warnings.push(...contrastWarnings(config));
    return { kind: 'shorthand', name: parsed.data.name ?? null, presetSource: 'shorthand', config, warnings };
  }
  const parsed = fullThemeJson.safeParse(raw);
  if (!parsed.success) throw new ValidationError('Invalid theme JSON (or a shorthand palette without primary)', issuesOf(parsed.error, field));
  const { css, removed } = sanitiseCss(parsed.data.adminTheme?.customCss ?? '');
  if (removed.length) warnings.push({ code: 'CSS_REMOVED', removed, message: `Removed from customCss: ${removed.join(', ')}` });
  const config = buildConfig(parsed.data, css);
  warnings.push(...contrastWarnings(config));
  return { kind: 'theme-json', name: parsed.data.name, presetSource: parsed.data.source ?? 'theme-json', config, warnings };
}

import { createRequire } from 'node:module';
import type { Oklch } from 'culori';

/**
 * culori, loaded on first use from its one-file CommonJS build (`culori/require`): its ES-module entry is 151
 * modules, which every boot paid for although palettes are computed only when a theme is written.
 */
let library: typeof import('culori') | null = null;
const culori = (): typeof import('culori') => (library ??= createRequire(import.meta.url)('culori/require') as typeof import('culori'));
const parse = (color: string) => culori().parse(color);
const formatHex = (color: import('culori').Color): string => culori().formatHex(color);
const clampChroma = (color: Oklch, mode: 'oklch') => culori().clampChroma(color, mode);
const wcagContrast = (a: string, b: string) => culori().wcagContrast(a, b);

/** The shade steps of every palette family, lightest first. */
export const SHADES = ['50', '100', '200', '300', '400', '500', '600', '700', '800', '900', '950'] as const;
export type Shade = (typeof SHADES)[number];
export type ShadeLadder = Record<Shade, string>;

let oklch: ((color: string) => Oklch | undefined) | null = null;
const toOklch = (color: string) => (oklch ??= culori().converter('oklch'))(color);

/** OKLCH lightness of the ends of every ladder; the seed sits at 500 (its lightness clamped to 0.40-0.80). */
const L_LIGHTEST = 0.975;
const L_DARKEST = 0.27;
/** Position of each step between the lightest end and 500 (50..400), and between 500 and the darkest end (600..950). */
const LIGHT_T = [1, 0.9, 0.74, 0.54, 0.28];
const DARK_T = [0.22, 0.44, 0.63, 0.82, 1];
/** Chroma relative to the seed's, per step: pale tints and deep shades carry less colour. */
const CHROMA = [0.12, 0.24, 0.45, 0.7, 0.9, 1, 0.96, 0.86, 0.74, 0.6, 0.46];

export const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** '#abc' or '#aabbcc' (any case) -> '#aabbcc'; throws for anything else. */
export function normaliseHex(value: string): string {
  const parsed = HEX.test(value) ? parse(value) : undefined;
  if (!parsed) throw new TypeError(`'${value}' is not a hex colour (#rgb or #rrggbb)`);
  return formatHex(parsed);
}

/** OKLCH of a hex colour (hue 0 for greys). */
export function oklchOf(hex: string): Oklch {
  const c = toOklch(normaliseHex(hex));
  return { mode: 'oklch', l: c?.l ?? 0, c: c?.c ?? 0, h: c?.h ?? 0 };
}

/**
 * An 11-step ladder 50..950 from one seed colour, perceptually even in OKLCH: the seed's hue throughout,
 * lightness falling monotonically from 0.975 to 0.27 with the seed (lightness clamped to 0.40-0.80) at 500,
 * chroma scaled per step and reduced where needed to stay inside sRGB.
 */
export function shadeLadder(seed: string): ShadeLadder {
  const base = oklchOf(seed);
  const mid = Math.min(0.8, Math.max(0.4, base.l));
  const lightness = [
    ...LIGHT_T.map((t) => mid + t * (L_LIGHTEST - mid)),
    mid,
    ...DARK_T.map((t) => mid - t * (mid - L_DARKEST)),
  ];
  const out = {} as ShadeLadder;
  SHADES.forEach((shade, i) => {
    const exactSeed = shade === '500' && mid === base.l;
    out[shade] = exactSeed
      ? normaliseHex(seed)
      : formatHex(clampChroma({ mode: 'oklch', l: lightness[i]!, c: base.c * CHROMA[i]!, h: base.h }, 'oklch'));
  });
  return out;
}

/** WCAG 2.x contrast ratio of two colours, rounded to two decimals (#777 on #fff = 4.48). */
export function contrastRatio(foreground: string, background: string): number {
  return Math.round(wcagContrast(normaliseHex(foreground), normaliseHex(background)) * 100) / 100;
}

/** Raw (unrounded) ratio, for choices that must not round up across the AA threshold. */
export function rawContrast(foreground: string, background: string): number {
  return wcagContrast(normaliseHex(foreground), normaliseHex(background));
}

/** White or near-black, whichever reads better on the background (either way at least 4.58:1). */
export function readableOn(background: string): string {
  return rawContrast('#ffffff', background) >= rawContrast('#000000', background) ? '#ffffff' : '#000000';
}

/** The colour with its OKLCH hue turned by `degrees` (lightness and chroma kept, clamped to sRGB). */
export function rotateHue(hex: string, degrees: number): string {
  const c = oklchOf(hex);
  return formatHex(clampChroma({ mode: 'oklch', l: c.l, c: c.c, h: (c.h! + degrees + 360) % 360 }, 'oklch'));
}

/** A near-grey with the hue of the colour (chroma 0.015): the neutral family of a shorthand palette. */
export function neutralOf(hex: string): string {
  const c = oklchOf(hex);
  return formatHex(clampChroma({ mode: 'oklch', l: 0.55, c: Math.min(c.c, 0.015), h: c.h }, 'oklch'));
}

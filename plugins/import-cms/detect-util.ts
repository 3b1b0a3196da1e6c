/** Small helpers for the detect functions (main thread, pure). */
import type { ImportProfile, ImportSample } from '../importers/public.js';

export type JsonProfile = NonNullable<ImportProfile['json']>;

/** Archive entry paths without a leading `./`. */
export const archiveEntries = (sample: ImportSample): string[] =>
  (sample.profile.archive?.entries ?? []).map((e) => e.replace(/^\.\//, ''));

/** The extension may only nudge a structural judgement, never make one. */
export function nudge(score: number, filename: string, extensions: RegExp): number {
  if (score <= 0) return 0;
  return Math.min(1, Math.round((score + (extensions.test(filename) ? 0.03 : 0)) * 100) / 100);
}

export const isTarName = (filename: string) => /\.(tar\.gz|tgz|tar)$/i.test(filename);

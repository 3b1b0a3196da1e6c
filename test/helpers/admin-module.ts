import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../kernel/version.js';

/**
 * Loads an admin UI module without imports (only type imports, which compile away) as the admin's bundler would:
 * compiled by TypeScript to an ES module in a temporary directory (removed again once loaded).
 */
export async function loadAdminModule<T>(path: string): Promise<T> {
  const source = readFileSync(join(PROJECT_ROOT, 'admin', 'src', path), 'utf8');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const dir = mkdtempSync(join(tmpdir(), 'admin-module-'));
  try {
    writeFileSync(join(dir, 'module.mjs'), js);
    return (await import(pathToFileURL(join(dir, 'module.mjs')).href)) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** admin/src/pages/content/locale-times.ts: the "out of date" rule of translations. */
export interface LocaleTimesRule {
  localeUpdatedAt(e: Record<string, unknown> | undefined, code: string | undefined): number | null;
  isOutOfDate(source: number | null, translation: number | null): boolean;
  entryOutOfDate(e: Record<string, unknown> | undefined, code: string, def: string | undefined): boolean;
}

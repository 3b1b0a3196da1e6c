import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../../kernel/sdk.js';

export interface BundledPreset {
  /** File name without .json (e.g. `ocean`). */
  id: string;
  /** The file's text, as POST /api/theme/import-preset takes it. */
  json: string;
  name: string;
}

/** The bundled presets folder: themes/ beside plugins/ in the compiled tree, else in the source tree. */
export function presetsDir(): string {
  const compiled = fileURLToPath(new URL('../../themes/', import.meta.url));
  return existsSync(compiled) ? compiled : join(PROJECT_ROOT, 'themes');
}

/** Reads every `<dir>/*.json` (sorted); a file that is not a JSON object is skipped. */
export function loadBundledPresets(dir = presetsDir()): BundledPreset[] {
  if (!existsSync(dir)) return [];
  const out: BundledPreset[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const json = readFileSync(join(dir, file), 'utf8');
    let name = file.slice(0, -5);
    try {
      const parsed = JSON.parse(json) as { name?: unknown };
      if (typeof parsed.name === 'string') name = parsed.name;
    } catch {
      continue;
    }
    out.push({ id: file.slice(0, -5), json, name });
  }
  return out;
}

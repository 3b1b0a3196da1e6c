import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.js';

/**
 * The real-world import samples (a byte-exact copy of the shared fixtures, with their per-folder READMEs and
 * licences; `.gitattributes` keeps git from touching line endings or BOMs). CMS_IMPORT_FIXTURES overrides.
 */
export const IMPORT_FIXTURES = process.env.CMS_IMPORT_FIXTURES ?? join(PROJECT_ROOT, 'test', 'fixtures', 'imports');

/**
 * Writes uploads as the importers service stores them: each in its own job folder under `dir()` (asked at
 * call time, so a suite may create the folder in its before hook), with the spool path beside it.
 */
export function uploadWriter(dir: () => string) {
  let n = 0;
  return (filename: string, content: string) => {
    const workDir = join(dir(), `job${++n}`);
    mkdirSync(workDir);
    const path = join(workDir, 'upload');
    writeFileSync(path, content);
    return { path, filename, size: statSync(path).size, workDir, spoolPath: join(workDir, 'spool.ndjson') };
  };
}

import { join } from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.js';

/**
 * The real-world import samples (a byte-exact copy of the shared fixtures, with their per-folder READMEs and
 * licences; `.gitattributes` keeps git from touching line endings or BOMs). CMS_IMPORT_FIXTURES overrides.
 */
export const IMPORT_FIXTURES = process.env.CMS_IMPORT_FIXTURES ?? join(PROJECT_ROOT, 'test', 'fixtures', 'imports');

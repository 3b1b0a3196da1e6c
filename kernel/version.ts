import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The project's root folder (where package.json lives), found from this compiled file in dist/kernel. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The compiled tree (dist/), where built-in plugins, workers and assets live at run time. */
export const DIST_ROOT = fileURLToPath(new URL('../', import.meta.url));

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
/** Plugins declare the kernel range they work with (`"kernel": "^1.0.0"`). */
export const KERNEL_VERSION: string = pkg.version;

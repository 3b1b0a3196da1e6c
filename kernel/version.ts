import { readFileSync } from 'node:fs';

/** The project's root folder (where package.json lives), found from this compiled file in dist/kernel. */
export const PROJECT_ROOT = new URL('../../', import.meta.url).pathname;
/** The compiled tree (dist/), where built-in plugins, workers and assets live at run time. */
export const DIST_ROOT = new URL('../', import.meta.url).pathname;

const pkg = JSON.parse(readFileSync(new URL('package.json', `file://${PROJECT_ROOT}`), 'utf8')) as { version: string };
/** Plugins declare the kernel range they work with (`"kernel": "^1.0.0"`). */
export const KERNEL_VERSION: string = pkg.version;

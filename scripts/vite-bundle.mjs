// What the two browser bundles (admin/vite.config.js, explorer/vite.config.js) build alike: one script and
// one stylesheet into an output folder that a relative --outDir names from the project root.
import { isAbsolute, resolve } from 'node:path';

/**
 * Vite resolves a relative --outDir against `root` (admin/, explorer/); this plugin resolves it against the
 * working directory instead, so `--outDir dist/admin-ui` from the project root means <project>/dist/admin-ui.
 */
export const outDirFromCwd = {
  name: 'cms-out-dir-from-cwd',
  config(config) {
    const out = config.build?.outDir;
    if (out && !isAbsolute(out)) config.build.outDir = resolve(process.cwd(), out);
  },
};

/**
 * The build options both bundles share: `outDir` (the default when no --outDir is given), emptied first, for
 * ES2022, no source maps; one script and one stylesheet, no inline module-preload helper (script-src 'self').
 */
export function singleBundleBuild(outDir) {
  return {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    cssCodeSplit: false,
    modulePreload: false,
    assetsInlineLimit: 8192,
  };
}

// Build of the GraphQL explorer: `vite build --config explorer/vite.config.js --outDir dist/graphql-explorer --emptyOutDir`
// (a separate bundle from the admin UI; the graphql plugin serves index.html at GET /api/graphql to
// signed-in browsers and the files under /api/graphql/explorer/).
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/api/graphql/explorer/',
  // Everything the page loads comes from this build: no CDN, no external fonts (GraphiQL's are inlined as data: URLs).
  publicDir: false,
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  plugins: [
    {
      // As in admin/vite.config.js: a relative --outDir means <project>/<outDir>, not explorer/<outDir>.
      name: 'cms-out-dir-from-cwd',
      config(config) {
        const out = config.build?.outDir;
        if (out && !isAbsolute(out)) config.build.outDir = resolve(process.cwd(), out);
      },
    },
  ],
  build: {
    outDir: fileURLToPath(new URL('../dist/graphql-explorer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // One script and one stylesheet, no inline module-preload helper (script-src 'self').
    cssCodeSplit: false,
    modulePreload: false,
    assetsInlineLimit: 8192,
    chunkSizeWarningLimit: 4096,
    rollupOptions: {
      output: { inlineDynamicImports: true },
      // React libraries mark modules "use client" (meaningful to server-component bundlers only); that is not a problem here.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});

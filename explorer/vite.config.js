// Build of the GraphQL explorer: `vite build --config explorer/vite.config.js --outDir dist/graphql-explorer --emptyOutDir`
// (a separate bundle from the admin UI; the graphql plugin serves index.html at GET /api/graphql to
// signed-in browsers and the files under /api/graphql/explorer/).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { outDirFromCwd, singleBundleBuild } from '../scripts/vite-bundle.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/api/graphql/explorer/',
  // Everything the page loads comes from this build: no CDN, no external fonts (GraphiQL's are inlined as data: URLs).
  publicDir: false,
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  // As in admin/vite.config.js: a relative --outDir means <project>/<outDir>, not explorer/<outDir>.
  plugins: [outDirFromCwd],
  build: {
    ...singleBundleBuild(fileURLToPath(new URL('../dist/graphql-explorer', import.meta.url))),
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

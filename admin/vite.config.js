// Build of the admin UI: `vite build --config admin/vite.config.js --outDir dist/admin-ui --emptyOutDir`
// (the output folder comes from the command line; the admin-ui plugin serves <dist>/admin-ui under /admin/).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { outDirFromCwd, singleBundleBuild } from '../scripts/vite-bundle.mjs';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/admin/',
  // Nothing is fetched at run time from anywhere but the CMS itself; no public/ folder is needed.
  publicDir: false,
  plugins: [svelte(), outDirFromCwd],
  build: {
    // One script and one stylesheet: the same files serve /admin/ and the setup wizard (/setup/assets/).
    ...singleBundleBuild(fileURLToPath(new URL('../dist/admin-ui', import.meta.url))),
    rollupOptions: { output: { inlineDynamicImports: true } },
  },
  server: {
    // `npx vite --config admin/vite.config.js` against a running instance (npm start) for development.
    proxy: { '/api': 'http://127.0.0.1:3000', '/files': 'http://127.0.0.1:3000' },
    fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] },
  },
});

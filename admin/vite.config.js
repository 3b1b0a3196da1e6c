// Build of the admin UI: `vite build --config admin/vite.config.js --outDir dist/admin-ui --emptyOutDir`
// (the output folder comes from the command line; the admin-ui plugin serves <dist>/admin-ui under /admin/).
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/admin/',
  // Nothing is fetched at run time from anywhere but the CMS itself; no public/ folder is needed.
  publicDir: false,
  plugins: [
    svelte(),
    {
      // Vite resolves a relative --outDir against `root` (admin/); resolve it against the working
      // directory instead, so `--outDir dist/admin-ui` from the project root means <project>/dist/admin-ui.
      name: 'cms-out-dir-from-cwd',
      config(config) {
        const out = config.build?.outDir;
        if (out && !isAbsolute(out)) config.build.outDir = resolve(process.cwd(), out);
      },
    },
  ],
  build: {
    outDir: fileURLToPath(new URL('../dist/admin-ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // One script and one stylesheet: the same files serve /admin/ and the setup wizard (/setup/assets/).
    cssCodeSplit: false,
    modulePreload: false,
    assetsInlineLimit: 8192,
    rollupOptions: { output: { inlineDynamicImports: true } },
  },
  server: {
    // `npx vite --config admin/vite.config.js` against a running instance (npm start) for development.
    proxy: { '/api': 'http://127.0.0.1:3000', '/files': 'http://127.0.0.1:3000' },
    fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] },
  },
});

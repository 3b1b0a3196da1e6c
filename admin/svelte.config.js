// Svelte options for the admin UI build (read by @sveltejs/vite-plugin-svelte): TypeScript in
// <script lang="ts"> through vitePreprocess; runes mode everywhere.
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

export default {
  preprocess: vitePreprocess(),
  compilerOptions: { runes: true },
};

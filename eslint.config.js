// ESLint (flat config) with typescript-eslint: the recommended rules of both, on the TypeScript sources.
// Checked in CI (bash .ci/run runs `npm run lint` and `npm run format:check` before the tests). Rules turned off
// below say why; formatting is Prettier's (.prettierrc.json), so eslint-config-prettier turns off rules it owns.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';

// --- admin UI and widgets (browser code): Svelte 5 components and rune modules with eslint-plugin-svelte
// on the TypeScript parser; the widgets' plain ES modules with browser globals. Kept as one block.
const ADMIN_COMPONENTS = ['admin/src/**/*.svelte'];
const ADMIN_RUNES = ['admin/src/**/*.svelte.ts'];
const ADMIN_SVELTE = [...ADMIN_COMPONENTS, ...ADMIN_RUNES];
/** The admin's own patterns for one of eslint-plugin-svelte's configs (components, rune modules, or both). */
const inAdmin = (c) => {
  if (!c.files && !c.rules) return c;
  const files = c.files?.every((f) => f.endsWith('.svelte')) ? ADMIN_COMPONENTS : c.files ? ADMIN_RUNES : ADMIN_SVELTE;
  return { ...c, files };
};
const adminAndWidgets = [
  // eslint-plugin-svelte's recommended configs, scoped to the admin (its rules entry has no `files`).
  ...svelte.configs.recommended.map(inAdmin),
  {
    files: ADMIN_SVELTE,
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
  {
    files: ['admin/src/**/*.ts', 'admin/src/**/*.svelte'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // Links inside the admin are plain hrefs the router intercepts (lib/router.svelte.ts), not resolve() of SvelteKit.
      'svelte/no-navigation-without-resolve': 'off',
      // Svelte 5 drops whitespace at the start and end of a tag: {' '} and {' (text)'} keep the spaces people read.
      'svelte/no-useless-mustaches': 'off',
    },
  },
  {
    files: ['widgets/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
];
// --- end of the admin UI and widgets block

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'admin/*.js',
      'admin/src/lib/api-types.gen.ts',
      'test/fixtures/**',
      'test-output/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
      // The widgets are plain ES modules (no build step): linted by the admin UI and widgets block.
      '!widgets/**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Zod schemas, Sequelize rows and test bodies are typed at the edges; `any` stays allowed inside tests and adapters.
      '@typescript-eslint/no-explicit-any': 'off',
      // tsc (noUnusedLocals) already reports unused code; underscore-prefixed parameters are intentional.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Declaration merging (ContainerServices) needs empty interfaces.
      '@typescript-eslint/no-empty-object-type': 'off',
      // Input hygiene and file-name checks match control characters on purpose.
      'no-control-regex': 'off',
    },
  },
  ...adminAndWidgets,
  prettier,
);

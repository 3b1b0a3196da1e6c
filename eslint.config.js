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

// --- Plugin boundary (issue 34): plugins meet the kernel only through kernel/sdk.js and each other only
// through <plugin>/public.js (or the worker-safe <plugin>/public-values.js). test/unit/plugin-boundary.test.ts
// adds what a lint rule cannot see (value imports from plugins outside the manifest's `requires` and `optional`). Exceptions: kernel modules a few plugins still
// import directly, each with its reason; remove an entry when its last importer is gone.
const KERNEL_EXCEPTIONS = [
  // Helpers shared by two or three plugins live in the top-level lib/ (update signature, bracket depth, the
  // storage kit, safe tar extraction, bulk inserts): plugins import lib/ freely, it is not part of the kernel.
  // What the kernel itself uses stays here and is listed.
  { module: 'text/like-contains.js', reason: 'LIKE escaping: the kernel audit search, users and media lists' },
  { module: 'cache/bounded-memory-store.js', reason: "the content list cache's memory layer" },
  { module: 'heap-growth.js', reason: 'data-ops bulk work raises the heap limit like the kernel does' },
  { module: 'http/local-path.js', reason: 'auth-oidc checks return paths like the kernel' },
  { module: 'http/refuse-control-characters.js', reason: 'content list queries refuse control characters like the kernel' },
  // Kernel internals that one plugin exposes or drives on purpose.
  { module: 'http/openapi.js', reason: "the openapi plugin serves the kernel's document" },
  { module: 'redis.js', reason: 'media opens its own Redis connection for upload quotas' },
  { module: 'db/sqlite-module.js', reason: 'setup checks a SQLite target with the kernel driver' },
  { module: 'config.js', reason: 'setup writes the private config; update-server boots its own kernel' },
  { module: 'discovery.js', reason: 'update-server boots its own kernel' },
  { module: 'index.js', reason: 'update-server boots its own kernel' },
  { module: 'logger.js', reason: 'update-server boots its own kernel' },
];
const escapeRegex = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The restricted import patterns for a file `depth` folders below plugins/<id>/ (0: plugins/<id>/x.ts). */
function boundaryPatterns(depth) {
  const up = '\\.\\./'.repeat(depth + 1);
  const allowed = ['sdk\\.js$', ...KERNEL_EXCEPTIONS.map((e) => escapeRegex(e.module) + (e.module.endsWith('/') ? '' : '$'))];
  return [
    {
      regex: `^${up}(?!\\.\\./)[^/]+/(?!public(-values)?\\.js$)`,
      message:
        "Another plugin's code is reached only through its public.ts (`../<plugin>/public.js`), or its worker-safe public-values.ts.",
    },
    {
      regex: `^${up}\\.\\./kernel/(?!(${allowed.join('|')}))`,
      message: 'Plugins import the kernel through kernel/sdk.js (or an exception listed in eslint.config.js).',
    },
  ];
}
const pluginBoundary = [0, 1, 2].map((depth) => ({
  files: [`plugins/*/${'*/'.repeat(depth)}*.ts`, `examples/*/${'*/'.repeat(depth)}*.ts`],
  rules: { 'no-restricted-imports': ['error', { patterns: boundaryPatterns(depth) }] },
}));
// --- end of the plugin boundary

// --- Size limits (issue 34): a file in plugins/, kernel/ or testing/ (the contract runners) stays under 400 lines
// and a function under 80, blank lines and comments counted, so a module keeps one concern and a function reads as
// named steps. Migrations are frozen (their code is checksummed by the ledger) and long by nature; generated files
// are not written by hand.
const sizeLimits = {
  files: ['plugins/**/*.ts', 'kernel/**/*.ts', 'testing/**/*.ts'],
  ignores: ['**/migrations.ts', '**/*-migrations.ts', '**/migrations/**', '**/*.gen.ts'],
  rules: {
    'max-lines': ['error', { max: 400, skipBlankLines: false, skipComments: false }],
    'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
  },
};

// --- The client SDK (packages/sdk) runs on Node 20+, Deno, browsers and edge workers: it imports only its own modules
// (no node: built-ins, no packages) and reads no Node global. test/unit/sdk-portability.test.ts checks the built files.
const sdkPortability = {
  files: ['packages/sdk/src/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: [{ regex: '^(?!\\./)', message: 'The client SDK imports only its own modules (./x.js): fetch only, no dependencies.' }] },
    ],
    'no-restricted-globals': ['error', 'process', 'Buffer', 'global', '__dirname', '__filename', 'require', 'module', 'setImmediate'],
  },
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'admin/*.js',
      'admin/src/lib/api-types.gen.ts',
      // The client SDK's build output and its copy of the route types (packages/sdk/scripts/build.mjs).
      'packages/*/dist/**',
      'packages/sdk/src/api-types.gen.ts',
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
  ...pluginBoundary,
  sizeLimits,
  sdkPortability,
  ...adminAndWidgets,
  prettier,
);

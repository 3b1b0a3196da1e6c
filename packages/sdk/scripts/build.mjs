// Builds the client SDK: copies the route types the admin UI uses (admin/src/lib/api-types.gen.ts, generated from
// the route declarations by scripts/gen-admin-api-types.mjs, the code path of GET /api/openapi.json) into
// src/api-types.gen.ts, then compiles src/ to dist/ with TypeScript (JavaScript and declarations; no bundling: a
// site's bundler tree-shakes the modules). Part of the root `npm run build`; `npm pack` runs it too (prepack).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const sdk = fileURLToPath(new URL('..', import.meta.url));
const generated = new URL('../../../admin/src/lib/api-types.gen.ts', import.meta.url);
if (!existsSync(generated)) {
  console.error('packages/sdk: admin/src/lib/api-types.gen.ts is missing: build the SDK from the repository (it is generated there)');
  process.exit(1);
}
copyFileSync(generated, new URL('../src/api-types.gen.ts', import.meta.url));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: sdk, stdio: 'inherit' });
process.exit(run.status ?? 1);

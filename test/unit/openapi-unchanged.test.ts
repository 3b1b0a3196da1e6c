import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../kernel/version.js';

// Issue 34 (the architecture step) changes how routes are declared and wired, never what they are: the OpenAPI
// document the built-in plugins describe must stay exactly the one taken before the step (main at 53e8404). When a
// later change means to alter the API, regenerate the fixture in the same commit and say why:
//   node scripts/gen-admin-api-types.mjs --openapi > test/fixtures/openapi/before-architecture-step.json
const GENERATOR = join(PROJECT_ROOT, 'scripts', 'gen-admin-api-types.mjs');
const BEFORE = join(PROJECT_ROOT, 'test', 'fixtures', 'openapi', 'before-architecture-step.json');

/** Every JSON path where two documents differ (at most `limit`), so a failure names the routes that changed. */
function differences(a: unknown, b: unknown, path = '$', out: string[] = [], limit = 20): string[] {
  if (out.length >= limit) return out;
  if (JSON.stringify(a) === JSON.stringify(b)) return out;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) differences((a as any)[key], (b as any)[key], `${path}.${key}`, out, limit);
    return out;
  }
  out.push(`${path}: before ${JSON.stringify(b)?.slice(0, 200)}, now ${JSON.stringify(a)?.slice(0, 200)}`);
  return out;
}

describe('the OpenAPI document is the one from before the architecture step', function () {
  it('GET /api/openapi.json of the built-in plugins equals test/fixtures/openapi/before-architecture-step.json', async function () {
    this.timeout(120_000);
    const { stdout } = await promisify(execFile)(process.execPath, [GENERATOR, '--openapi'], {
      cwd: PROJECT_ROOT,
      maxBuffer: 64 * 1024 * 1024,
    });
    const now = JSON.parse(stdout) as { paths: Record<string, unknown> };
    const before = JSON.parse(readFileSync(BEFORE, 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(now.paths).length, 'the number of paths').to.equal(Object.keys(before.paths).length);
    expect(differences(now, before), 'where the document changed').to.deep.equal([]);
  });
});

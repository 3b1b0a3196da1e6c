import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../kernel/version.js';

/**
 * A ratchet on the untyped plugin API: `scope.x as X` casts in plugins are replaced by typed scopes
 * (each plugin declares its container keys in ContainerServices, routes use defineRoute). The count may
 * only go down; it is zero now: declare a key in your plugin's public.ts instead of casting.
 */
const CEILING = 0;
const CAST = /(?:scope|cradle)(?:\.cradle)?\.[a-zA-Z]+ as [A-Z{]/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('plugin API: casts of the request scope (ratchet)', function () {
  it(`plugins cast scope services at most ${CEILING} times (the count only goes down)`, function () {
    const counts = tsFiles(join(PROJECT_ROOT, 'plugins')).map((f) => ({ f, n: readFileSync(f, 'utf8').match(CAST)?.length ?? 0 }));
    const total = counts.reduce((n, c) => n + c.n, 0);
    expect(
      total,
      `scope casts: ${total}; the most in ${counts
        .sort((a, b) => b.n - a.n)
        .slice(0, 3)
        .map((c) => `${c.f.slice(PROJECT_ROOT.length + 1)} (${c.n})`)
        .join(', ')}`,
    ).to.be.at.most(CEILING);
  });
});

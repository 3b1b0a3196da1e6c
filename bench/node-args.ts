/**
 * The node flags a bench child runs with: BENCH_CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"), and
 * for the kernel (`dist/kernel/cli.js`) also the flags of `npm start` (package.json), so the bench measures the
 * kernel as it is started.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST_ROOT } from '../kernel/version.js';

let startFlags: string[] | undefined;

/** The flags between `node` and `dist/kernel/cli.js` in package.json's start script. */
function npmStartFlags(): string[] {
  if (startFlags) return startFlags;
  const pkg = JSON.parse(readFileSync(join(DIST_ROOT, '..', 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const m = /\bnode\s+(.*?)\s*dist\/kernel\/cli\.js/.exec(pkg.scripts?.start ?? '');
  startFlags = (m?.[1] ?? '').split(/\s+/).filter((f) => f.startsWith('--'));
  return startFlags;
}

export function childNodeArgs(script: string): string[] {
  const extra = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return script.endsWith(join('kernel', 'cli.js')) ? [...npmStartFlags(), ...extra] : extra;
}

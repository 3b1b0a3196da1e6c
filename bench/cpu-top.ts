/**
 * Prints the top self-time functions of a V8 CPU profile (`node --cpu-prof`):
 * `node dist/bench/cpu-top.js <file.cpuprofile> [count=15] [pattern]`. Self time is summed per function
 * (name + file + line) over all samples; with a pattern (a regular expression on "name file:line"), the
 * inclusive time (self + callees) of the matching functions is printed too. With CPU_TOP_WINDOWS="a-b,c-d"
 * (seconds since the profile started, as bench/graphql-subscribers.ts prints them), only the samples in
 * those windows count.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, countText, pattern] = process.argv.slice(2);
if (!file) {
  console.error('usage: node dist/bench/cpu-top.js <file.cpuprofile> [count] [pattern]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
const keyOf = (n: ProfileNode) => {
  const f = n.callFrame;
  const where = f.url
    ? `${f.url
        .replace(/^file:\/\//, '')
        .split('/')
        .slice(-3)
        .join('/')}:${f.lineNumber + 1}`
    : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const match = pattern ? new RegExp(pattern) : null;
const windows = (process.env.CPU_TOP_WINDOWS ?? '')
  .split(',')
  .filter(Boolean)
  .map((w) => w.split('-').map((s) => Number(s) * 1e6) as [number, number]);
let total = 0;
let at = 0;
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0;
  at += us;
  if (windows.length && !windows.some(([from, to]) => at >= from && at <= to)) return;
  total += us;
  const key = keyOf(byId.get(id)!);
  self.set(key, (self.get(key) ?? 0) + us);
  if (!match) return;
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const k = keyOf(byId.get(at)!);
    if (match.test(k) && !seen.has(k)) {
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }
});
const idle = self.get('(idle)') ?? 0;
const busy = total - idle;
const row = (us: number, key: string) =>
  `${(us / 1000).toFixed(1).padStart(9)} ms  ${((us / busy) * 100).toFixed(1).padStart(5)} %  ${key}`;
console.log(`total ${(total / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms`);
console.log('self time:');
for (const [key, us] of [...self]
  .filter(([k]) => k !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(countText ?? 15)))
  console.log(row(us, key));
if (match) {
  console.log(`inclusive time of /${pattern}/:`);
  for (const [key, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(row(us, key));
}

/**
 * Prints the top self-time functions of a V8 CPU profile (`node --cpu-prof`; the bench's servers with
 * BENCH_CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>"):
 * `node dist/bench/profile-top.js <file.cpuprofile> [count]`. Self time per function (name, file, line),
 * summed over the profile's nodes, with its share of the sampled time (idle and GC listed as V8 names them).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function topSelfTime(profile: CpuProfile, count = 15): Array<{ name: string; ms: number; share: number }> {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    const f = byNode.get(id)!.callFrame;
    const where = f.url ? ` ${f.url.replace(/^file:\/\/.*?\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'}${where}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, ms]) => ({ name, ms: Math.round(ms), share: total ? ms / total : 0 }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, n] = process.argv.slice(2);
  if (!file) throw new Error('usage: node dist/bench/profile-top.js <file.cpuprofile> [count]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const total = profile.timeDeltas.reduce((a, b) => a + b, 0) / 1000;
  console.log(`${file}: ${Math.round(total)} ms sampled`);
  for (const t of topSelfTime(profile, Number(n ?? 15)))
    console.log(`${(t.share * 100).toFixed(1).padStart(5)}% ${String(t.ms).padStart(7)} ms  ${t.name}`);
}

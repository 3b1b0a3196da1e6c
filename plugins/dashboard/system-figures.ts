import { cpus, arch, freemem, hostname, loadavg, platform, release, totalmem, type as osType, uptime as osUptime } from 'node:os';
import { readdir, lstat, statfs } from 'node:fs/promises';
import { join } from 'node:path';

const GB = 1024 ** 3;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** "12.4 MB" style. */
export function humanBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : round(value, 1)} ${units[unit]}`;
}

/** Bytes under a folder (symlinks not followed); stops counting after maxEntries files. */
export async function folderBytes(dir: string, maxEntries = 200_000): Promise<number> {
  let total = 0;
  let seen = 0;
  const stack = [dir];
  while (stack.length && seen < maxEntries) {
    const current = stack.pop()!;
    let names: string[];
    try {
      names = await readdir(current);
    } catch {
      continue;
    }
    for (const name of names) {
      const full = join(current, name);
      try {
        const s = await lstat(full);
        if (s.isDirectory()) stack.push(full);
        else if (s.isFile()) total += s.size;
      } catch {
        // removed meanwhile
      }
      if (++seen >= maxEntries) break;
    }
  }
  return total;
}

export type SystemInfoType = 'cpu' | 'memory' | 'os' | 'disk';

/** The spec's system-info body, read from the operating system; `type` keeps one part. */
/** `showPath`: the data folder's path in diskInfo (installation administrators only; otherwise null). */
export async function systemInfo(dataPath: string, type?: SystemInfoType, showPath = true): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  if (!type || type === 'os') {
    out.osInfo = {
      platform: platform(),
      arch: arch(),
      type: osType(),
      release: release(),
      hostname: hostname(),
      uptime: Math.round(osUptime()),
    };
  }
  if (!type || type === 'cpu') {
    const list = cpus();
    const [l1, l5, l15] = loadavg();
    out.cpuInfo = {
      model: list[0]?.model.trim() ?? 'unknown',
      cores: list.length,
      speedMHz: list[0]?.speed ?? 0,
      loadAverage: [round(l1!), round(l5!), round(l15!)],
    };
  }
  if (!type || type === 'memory') {
    const total = totalmem();
    const free = freemem();
    out.memoryInfo = { total, free, used: total - free, usedPercent: round(((total - free) / total) * 100, 1) };
  }
  if (!type || type === 'disk') {
    try {
      const s = await statfs(dataPath);
      const total = s.blocks * s.bsize;
      const free = s.bavail * s.bsize;
      out.diskInfo = {
        root: {
          path: showPath ? dataPath : null,
          totalGb: round(total / GB),
          usedGb: round((total - free) / GB),
          freeGb: round(free / GB),
          usedPercent: total ? round(((total - free) / total) * 100, 1) : 0,
        },
      };
    } catch {
      out.diskInfo = { root: null };
    }
  }
  return out;
}

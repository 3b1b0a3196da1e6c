import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every regular file below `dir` (paths relative to it, with `/`) and its size in bytes: how an unpacked archive
 * (a backup folder, a content package) is checked against the files its manifest lists. Anything that is neither a
 * file nor a folder (a link, a device) is handed to `other`, which throws or records it.
 */
export async function listFiles(dir: string, other: (relativePath: string) => void): Promise<Map<string, number>> {
  const present = new Map<string, number>();
  const walk = async (sub: string): Promise<void> => {
    for (const d of await readdir(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${d.name}` : d.name;
      if (d.isDirectory()) await walk(rel);
      else if (d.isFile()) present.set(rel, (await stat(join(dir, rel))).size);
      else other(rel);
    }
  };
  await walk('');
  return present;
}

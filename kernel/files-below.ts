import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every regular file below `dir` by its relative path (forward slashes) with its size, folders walked
 * depth first. Anything else (a link, a device, a FIFO) is handed to `onOther` with its relative path:
 * the caller throws to refuse the tree, or notes it and lets the walk go on.
 */
export async function filesBelow(dir: string, onOther: (relativePath: string) => void): Promise<Map<string, number>> {
  const files = new Map<string, number>();
  const walk = async (sub: string): Promise<void> => {
    for (const d of await readdir(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${d.name}` : d.name;
      if (d.isDirectory()) await walk(rel);
      else if (d.isFile()) files.set(rel, (await stat(join(dir, rel))).size);
      else onOther(rel);
    }
  };
  await walk('');
  return files;
}

import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PROJECT_ROOT } from '../../kernel/version.js';

/** README.md and every Markdown file under docs/, as paths relative to the project. */
function documentationFiles(): string[] {
  const files = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files.sort();
}

/** The relative link targets of a Markdown text (outside fenced code blocks), without their #fragment. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(target))
    .map((target) => decodeURIComponent(target.split('#')[0]!));
}

describe('documentation links', function () {
  it('every relative link in README.md and docs/**/*.md points at a file or folder of the project', function () {
    const broken: string[] = [];
    for (const file of documentationFiles()) {
      for (const target of relativeLinks(readFileSync(join(PROJECT_ROOT, file), 'utf8'))) {
        const path = resolve(PROJECT_ROOT, dirname(file), target);
        const inside = !relative(PROJECT_ROOT, path).startsWith('..');
        if (!inside || !existsSync(path)) broken.push(`${file} -> ${target}`);
      }
    }
    expect(broken).to.deep.equal([]);
  });
});

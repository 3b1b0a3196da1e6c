import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

/** Content types of the files the explorer's Vite build emits. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export interface ExplorerFile {
  body: Buffer;
  type: string;
}

/**
 * The built GraphQL explorer (`npm run build` -> dist/graphql-explorer), read into memory on first use
 * (about 1.7 MB), so an instance that never serves the explorer never holds it. Assets are looked up by
 * their path in a map: no request path reaches the file system.
 */
export class ExplorerBuild {
  private loaded: { index: string | null; files: Map<string, ExplorerFile> } | null = null;

  constructor(readonly dir: string) {}

  private load() {
    if (this.loaded) return this.loaded;
    const files = new Map<string, ExplorerFile>();
    if (!existsSync(join(this.dir, 'index.html'))) return (this.loaded = { index: null, files });
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const full = join(d, name);
        if (statSync(full).isDirectory()) walk(full);
        else
          files.set(relative(this.dir, full).split(sep).join('/'), {
            body: readFileSync(full),
            type: TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
          });
      }
    };
    walk(this.dir);
    return (this.loaded = { index: files.get('index.html')!.body.toString('utf8'), files });
  }

  /** index.html of the build, or null when it has not been built. */
  get page(): string | null {
    return this.load().index;
  }

  /** A file under assets/ (`index-abc.js`), or null. */
  asset(name: string): ExplorerFile | null {
    return this.load().files.get(`assets/${name}`) ?? null;
  }
}

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { extname, join, relative, sep } from 'node:path';

/** Content types of the files a Vite build emits. */
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.jpg': 'image/jpeg',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

export interface UiFile {
  body: Buffer;
  type: string;
  /** Hashed file names (Vite's assets/) never change: they may be cached for a year. */
  immutable: boolean;
}

/**
 * The built admin UI. At boot only index.html is read; the list of the build's files is made on the
 * first asset request, and each file is read into memory on its first request and kept (so idle memory
 * does not hold bundles and source maps nobody asked for). Requests are looked up by their relative
 * path in that list, so no request path ever reaches the file system: traversal is impossible by
 * construction.
 */
export class UiBuild {
  /** Relative path -> absolute path of every file of the build; made on first use. */
  private paths: Map<string, string> | null = null;
  private readonly files = new Map<string, UiFile>();
  private readonly index: string | null;

  constructor(readonly dir: string) {
    const indexFile = join(dir, 'index.html');
    this.index = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : null;
  }

  private list(): Map<string, string> {
    if (this.paths) return this.paths;
    const paths = new Map<string, string>();
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const full = join(d, name);
        if (statSync(full).isDirectory()) walk(full);
        else paths.set(relative(this.dir, full).split(sep).join('/'), full);
      }
    };
    if (this.index !== null) walk(this.dir);
    return (this.paths = paths);
  }

  get available(): boolean {
    return this.index !== null;
  }

  /** A file of the build by its path relative to the build folder (`assets/index-abc.js`), or null. */
  file(path: string): UiFile | null {
    const cached = this.files.get(path);
    if (cached) return cached;
    const full = this.list().get(path);
    if (full === undefined) return null;
    const file: UiFile = {
      body: readFileSync(full),
      type: TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
      immutable: path.startsWith('assets/'),
    };
    this.files.set(path, file);
    return file;
  }

  /**
   * index.html for a page: `title` replaces the document title; `assetPrefix` moves asset URLs from
   * /admin/assets/ (needed for /setup, where every other path redirects until setup completes).
   */
  html(options: { title?: string; assetPrefix?: string } = {}): string {
    if (this.index === null) throw new Error('The admin UI is not built');
    let out = this.index;
    if (options.title) out = out.replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(options.title)}</title>`);
    if (options.assetPrefix) out = out.split('/admin/assets/').join(options.assetPrefix);
    return out;
  }

  /** A short fingerprint of index.html, for logs. */
  fingerprint(): string {
    return this.index === null ? 'missing' : createHash('sha256').update(this.index).digest('hex').slice(0, 12);
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

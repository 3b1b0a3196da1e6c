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
 * The built admin UI, read into memory once at boot (a few hundred KiB). Requests are looked up by
 * their relative path in this map, so no request path ever reaches the file system: traversal is
 * impossible by construction.
 */
export class UiBuild {
  private readonly files = new Map<string, UiFile>();
  private readonly index: string | null;

  constructor(readonly dir: string) {
    if (!existsSync(join(dir, 'index.html'))) {
      this.index = null;
      return;
    }
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const full = join(d, name);
        if (statSync(full).isDirectory()) walk(full);
        else {
          const rel = relative(dir, full).split(sep).join('/');
          this.files.set(rel, {
            body: readFileSync(full),
            type: TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream',
            immutable: rel.startsWith('assets/'),
          });
        }
      }
    };
    walk(dir);
    this.index = this.files.get('index.html')!.body.toString('utf8');
  }

  get available(): boolean {
    return this.index !== null;
  }

  /** A file of the build by its path relative to the build folder (`assets/index-abc.js`), or null. */
  file(path: string): UiFile | null {
    return this.files.get(path) ?? null;
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

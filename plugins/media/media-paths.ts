import { MediaPathInvalidError } from './errors.js';

/** Tenant ids become a path segment: anything unusual is replaced. */
const segment = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || '_';

/**
 * The relative path of a new upload: `<tenant>/<yyyy>/<mm>/<id>-<slug>.<ext>`, under `private/` for
 * private media (so an operator can keep that prefix out of a public bucket).
 */
export function storagePath(input: { tenantId: string; private: boolean; id: string; slug: string; ext: string; at: Date }): string {
  const yyyy = String(input.at.getUTCFullYear());
  const mm = String(input.at.getUTCMonth() + 1).padStart(2, '0');
  return `${input.private ? 'private/' : ''}${segment(input.tenantId)}/${yyyy}/${mm}/${input.id}-${input.slug}.${input.ext}`;
}

/** A thumbnail beside its original: `<path-without-ext>.<name>.webp`. */
export function thumbnailPath(path: string, name: string): string {
  return `${path.replace(/\.[^./]+$/, '')}.${name}.webp`;
}

const SAFE_PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/**
 * A stored media path from a URL (percent-encoded) or a request body: refused before any lookup or
 * driver call when it could leave the media folder or is not one this plugin writes: NUL bytes,
 * backslashes, `.`/`..` segments (also percent-encoded, slashes included), absolute or empty segments,
 * anything outside [A-Za-z0-9._-/], longer than 400 characters.
 */
export function confinePath(raw: string, encoded: boolean): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 1200) throw new MediaPathInvalidError();
  let path = raw;
  if (encoded) {
    try {
      path = decodeURIComponent(raw);
    } catch {
      throw new MediaPathInvalidError();
    }
  }
  if (path.length > 400 || /[\0\\]/.test(path) || path.startsWith('/')) throw new MediaPathInvalidError();
  if (path.split('/').some((s) => s === '' || s === '.' || s === '..')) throw new MediaPathInvalidError();
  if (!SAFE_PATH.test(path)) throw new MediaPathInvalidError();
  return path;
}

/** For a thumbnail path, the original's path stem (`<stem>.<ext>`) and the thumbnail name. */
export function thumbnailParts(path: string): { stem: string; name: string } | null {
  const m = /^(.+)\.([a-z0-9]{1,16})\.webp$/.exec(path);
  return m ? { stem: m[1]!, name: m[2]! } : null;
}

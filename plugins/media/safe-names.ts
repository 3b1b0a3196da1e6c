import { extname } from 'node:path';

/**
 * The name shown for an upload: the client's own name, never renamed. Only what cannot be part of a
 * name is taken out: folders (`a/b/c.png` -> `c.png`), control and bidi-override characters, leading
 * dots and spaces, trailing dots and spaces (which Windows drops, turning `x.html.` into `x.html`).
 * A name longer than 191 characters is shortened before its extension. A name with nothing left
 * (`""`, `"..."`) becomes `file.<fallbackExt>`, the detected type's extension.
 */
export function keptName(originalName: string, fallbackExt: string): string {
  const base = (originalName.split(/[/\\]/).pop() ?? '')
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  if (!base) return `file.${fallbackExt}`;
  const chars = [...base]; // code points: a cut never splits a surrogate pair
  if (chars.length <= 191) return base;
  const ext = extname(base);
  return ext.length > 1 && ext.length <= 11
    ? `${chars
        .slice(0, 191 - ext.length)
        .join('')
        .trimEnd()}${ext}`
    : chars.slice(0, 191).join('');
}

/** ASCII slug of a name for storage paths: `Mon été (1).PNG` -> `mon-ete-1`. */
export function slugOf(name: string): string {
  const stem = name.replace(/\.[^.]*$/, '');
  const slug = stem
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug || 'file';
}

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266 / RFC 5987 filename*). */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%;]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

import { extname } from 'node:path';

/**
 * The name shown for an upload: the client's base name without folders, control or bidi-override
 * characters, trimmed to 191 characters, with the extension of the detected type when the client's
 * one does not fit it (`notes.png` holding text becomes `notes.txt`).
 */
export function displayName(originalName: string, ext: string, knownExts: readonly string[] = []): string {
  const base = (originalName.split(/[/\\]/).pop() ?? '')
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/^[\s.]+|\s+$/g, '');
  const current = extname(base).slice(1).toLowerCase();
  const stem = current ? base.slice(0, -(current.length + 1)) : base;
  const fits = current === ext || knownExts.includes(current);
  const name = `${(stem || 'file').slice(0, 180)}.${fits ? current : ext}`;
  return name;
}

/** ASCII slug of a name for storage paths: `Mon été (1).PNG` -> `mon-ete-1`. */
export function slugOf(name: string): string {
  const stem = name.replace(/\.[^.]*$/, '');
  const slug = stem.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
  return slug || 'file';
}

/** Content-Disposition with an ASCII fallback and the UTF-8 name (RFC 6266 / RFC 5987 filename*). */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\%;]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** Extensions that legitimately name a detected type besides its canonical one. */
export const EXTRA_EXTS: Record<string, string[]> = {
  'image/jpeg': ['jpeg', 'jpe'],
  'image/tiff': ['tiff'],
  'text/plain': ['text', 'md', 'log', 'ini', 'cfg', 'conf', 'yaml', 'yml', 'toml'],
  'text/html': ['htm'],
  'video/quicktime': ['qt'],
  'audio/mpeg': ['mp3', 'mpga'],
};

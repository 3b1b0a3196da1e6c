/** Which detected types are allowed, rendered inline by /files/, and thumbnailed. */

/** `image/*` matches every image type; anything else matches exactly. */
export function typeAllowed(mimeType: string, allowed: readonly string[]): boolean {
  const type = mimeType.toLowerCase();
  return allowed.some((a) => a === '*/*' || a === type || (a.endsWith('/*') && type.startsWith(a.slice(0, -1))));
}

/** Never inline unless configured: script-capable or markup types. */
const NEVER_INLINE_BY_DEFAULT = new Set(['image/svg+xml', 'text/html', 'application/xhtml+xml', 'application/xml', 'text/xml']);

/** Inline-safe by default: images (but SVG), PDF, audio, video, plain text. Everything else is an attachment. */
export function servedInline(mimeType: string, extraInline: readonly string[]): boolean {
  const type = mimeType.toLowerCase();
  if (typeAllowed(type, extraInline)) return true;
  if (NEVER_INLINE_BY_DEFAULT.has(type)) return false;
  return (
    type.startsWith('image/') ||
    type.startsWith('audio/') ||
    type.startsWith('video/') ||
    type === 'application/pdf' ||
    type === 'text/plain'
  );
}

/** Raster formats sharp reads here: these get dimensions and thumbnails. */
export const RASTER_TYPES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif', 'image/tiff']);

/** The Content-Type header of a stored type: text is always UTF-8 (detection accepts nothing else). */
export function contentTypeHeader(mimeType: string): string {
  return mimeType.startsWith('text/') || mimeType === 'application/json' || mimeType === 'image/svg+xml'
    ? `${mimeType}; charset=utf-8`
    : mimeType;
}

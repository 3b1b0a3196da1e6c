import { StorageError } from './storage-error.js';

const MAX_PATH_CHARS = 1024;
const MAX_SEGMENT_BYTES = 255;
/** NUL and other control characters, backslashes, and bidirectional overrides (names that display as something else). */
const FORBIDDEN = /[\u0000-\u001f\u007f\\]|[\u202a-\u202e\u2066-\u2069]/u;
/** A percent-encoded byte: the path must arrive decoded, so `%2e%2e%2f` cannot sneak past as a name. */
const ENCODED = /%[0-9a-f]{2}/i;

function refuse(path: string, why: string): StorageError {
  return new StorageError('INVALID_PATH', `Invalid storage path ${JSON.stringify(path.slice(0, 200))}: ${why}`);
}

/**
 * Checks a relative storage path (`default/2026/11/x.png`) and returns its segments. Refused: empty
 * or over-long paths, absolute paths (`/x`, `C:x`), backslashes, NUL and control characters,
 * percent-encoded bytes, empty segments (`a//b`, a trailing slash), and any segment starting with a
 * dot (`.`, `..`, hidden names: the driver's own temporary files are dot files).
 */
export function storagePathSegments(path: unknown): string[] {
  if (typeof path !== 'string' || path.length === 0) throw new StorageError('INVALID_PATH', 'Invalid storage path: empty or not a string');
  if (path.length > MAX_PATH_CHARS) throw refuse(path, `longer than ${MAX_PATH_CHARS} characters`);
  if (FORBIDDEN.test(path)) throw refuse(path, 'control characters, NUL bytes, backslashes and direction overrides are not allowed');
  if (ENCODED.test(path)) throw refuse(path, 'percent-encoded characters are not allowed (decode the path first)');
  if (path.startsWith('/') || /^[a-z]:/i.test(path)) throw refuse(path, 'absolute paths are not allowed');
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '') throw refuse(path, 'empty path segment');
    if (segment.startsWith('.')) throw refuse(path, 'a segment may not start with a dot (no ., .. or hidden names)');
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) throw refuse(path, `a segment is longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  return segments;
}

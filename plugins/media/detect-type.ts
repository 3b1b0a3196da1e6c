import { open } from 'node:fs/promises';
import { extname } from 'node:path';

export interface DetectedType {
  mimeType: string;
  /** The extension stored paths and shown names get. */
  ext: string;
}

/** Validates JSON (in the worker pool) for files that look like JSON; larger files are kept as plain text. */
export type JsonCheck = (path: string) => Promise<boolean>;
export const JSON_VALIDATE_MAX_BYTES = 32 * 1024 * 1024;

const HEAD_BYTES = 64 * 1024;

/** Legacy Office files are all Compound File Binary: the extension picks among them. */
const CFB_BY_EXT: Record<string, string> = {
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  ppt: 'application/vnd.ms-powerpoint',
};

async function readHead(path: string): Promise<{ bytes: Buffer; truncated: boolean }> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { bytes: buffer.subarray(0, Math.min(bytesRead, HEAD_BYTES)), truncated: bytesRead > HEAD_BYTES };
  } finally {
    await handle.close();
  }
}

/** UTF-8 (BOM allowed), no NUL, hardly any control characters; a sequence cut at the end of the head is fine. */
export function decodeText(bytes: Buffer, truncated: boolean): string | null {
  if (bytes.includes(0)) return null;
  let slice = bytes;
  if (truncated) {
    // Drop a multi-byte sequence the head cut in two.
    let cut = slice.length;
    for (let i = 1; i <= 3 && i <= slice.length; i++) {
      const b = slice[slice.length - i]!;
      if ((b & 0xc0) === 0x80) continue;
      if (b >= 0xc0) cut = slice.length - i;
      break;
    }
    slice = slice.subarray(0, cut);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(slice);
  } catch {
    return null;
  }
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 12 && c !== 13) || c === 0x7f) controls++;
  }
  return controls > text.length / 100 ? null : text.replace(/^\uFEFF/, '');
}

/** Leading XML prolog, comments, doctype (not an HTML one) and whitespace removed. */
function markupStart(text: string): string {
  let s = text.slice(0, 8192).trimStart();
  for (;;) {
    const next = s
      .replace(/^<\?xml[\s\S]*?\?>/i, '')
      .replace(/^<!--[\s\S]*?-->/, '')
      .replace(/^<!doctype\s+(?!html)[^>]*>/i, '')
      .trimStart();
    if (next === s) return s.toLowerCase();
    s = next;
  }
}

const HTML_START = /^<(!doctype\s+html|html|head|body|script|iframe|meta|title|style|div|p|a|img|form|table|link|base)[\s>/]/;

export function textType(text: string, ext: string): { mimeType: string; ext: string; maybeJson: boolean } {
  const start = markupStart(text);
  if (/^<svg[\s>/]/.test(start)) return { mimeType: 'image/svg+xml', ext: 'svg', maybeJson: false };
  if (HTML_START.test(start)) return { mimeType: 'text/html', ext: 'html', maybeJson: false };
  const maybeJson = ext === 'json' || /^\s*[[{]/.test(text);
  if (ext === 'csv') return { mimeType: 'text/csv', ext: 'csv', maybeJson: false };
  return { mimeType: 'text/plain', ext: 'txt', maybeJson };
}

/**
 * The type of a stored upload from its content, never from the client: file-type's signatures, then for
 * files without one a text check (UTF-8) that tells SVG, HTML, JSON (must parse), CSV (by extension)
 * and plain text apart. Anything else is application/octet-stream.
 */
export async function detectType(path: string, originalName: string, size: number, isJson: JsonCheck): Promise<DetectedType> {
  const clientExt = extname(originalName).slice(1).toLowerCase();
  // file-type (and its tokenizers) loads with the first upload, not at start.
  const found = size > 0 ? await (await import('file-type')).fileTypeFromFile(path) : undefined;
  if (found) {
    if (found.mime === 'application/x-cfb' && CFB_BY_EXT[clientExt]) return { mimeType: CFB_BY_EXT[clientExt]!, ext: clientExt };
    if (found.mime === 'application/xml' || found.mime === 'text/xml') {
      const head = await readHead(path);
      const text = decodeText(head.bytes, head.truncated);
      if (text !== null) {
        const kind = textType(text, clientExt);
        if (kind.mimeType !== 'text/plain' && kind.mimeType !== 'text/csv') return { mimeType: kind.mimeType, ext: kind.ext };
      }
      return { mimeType: 'application/xml', ext: 'xml' };
    }
    return { mimeType: found.mime, ext: found.ext };
  }
  if (size === 0) return { mimeType: 'text/plain', ext: 'txt' };
  const head = await readHead(path);
  const text = decodeText(head.bytes, head.truncated);
  if (text === null) return { mimeType: 'application/octet-stream', ext: 'bin' };
  const kind = textType(text, clientExt);
  if (kind.maybeJson && size <= JSON_VALIDATE_MAX_BYTES && (await isJson(path))) return { mimeType: 'application/json', ext: 'json' };
  return { mimeType: kind.mimeType, ext: kind.ext };
}

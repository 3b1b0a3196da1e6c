/**
 * Worker side: how a text upload is encoded, and a stream of its decoded text. BOM first, then a strict
 * UTF-8 check of the first 64 KiB, then chardet among the single-byte encodings (windows-1252 fallback).
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import chardet from 'chardet';
import iconv from 'iconv-lite';
import { readHead } from '../../workers/import/read-head.js';

export const HEAD_BYTES = 64 * 1024;

export interface TextEncodingInfo {
  encoding: string;
  bom: boolean;
  /** The decoded first 64 KiB (BOM removed). */
  head: string;
  /** The file has no bytes at all. */
  empty: boolean;
  /** The head is not the whole file. */
  truncated: boolean;
}

/** chardet names that are plain single-byte Latin encodings; ISO-8859-1/9/15 are read as windows-1252 (a superset for text). */
const SINGLE_BYTE: Record<string, string> = {
  'ISO-8859-1': 'windows-1252',
  'ISO-8859-9': 'windows-1252',
  'ISO-8859-15': 'windows-1252',
  'windows-1252': 'windows-1252',
  'ISO-8859-2': 'windows-1250',
  'windows-1250': 'windows-1250',
  'windows-1257': 'windows-1257',
  'ISO-8859-5': 'ISO-8859-5',
  'windows-1251': 'windows-1251',
  'KOI8-R': 'KOI8-R',
  'ISO-8859-7': 'ISO-8859-7',
  'windows-1253': 'windows-1253',
};

/** Valid UTF-8, allowing a sequence cut at the end of a full head. */
function isUtf8(head: Buffer, truncated: boolean): boolean {
  let end = head.length;
  if (truncated) {
    // step back over at most 3 continuation bytes and the lead byte of a cut sequence
    let i = end - 1;
    while (i >= 0 && end - i <= 4 && (head[i] & 0xc0) === 0x80) i--;
    if (i >= 0 && head[i] >= 0xc0) end = i;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

export function guessEncoding(head: Buffer, truncated: boolean): { encoding: string; bom: boolean } {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bom: true };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: true };
  if (isUtf8(head, truncated)) return { encoding: 'utf-8', bom: false };
  for (const match of chardet.analyse(head)) {
    const mapped = SINGLE_BYTE[match.name];
    if (mapped) return { encoding: mapped, bom: false };
    if ((match.name === 'UTF-16LE' || match.name === 'UTF-16BE') && match.confidence >= 90)
      return { encoding: match.name.toLowerCase(), bom: false };
  }
  return { encoding: 'windows-1252', bom: false };
}

export async function detectTextEncoding(path: string, override?: unknown): Promise<TextEncodingInfo> {
  const raw = await readHead(path, HEAD_BYTES);
  const guessed = guessEncoding(raw, raw.length === HEAD_BYTES);
  const encoding = typeof override === 'string' && iconv.encodingExists(override) ? override : guessed.encoding;
  let head = iconv.decode(raw, encoding);
  if (head.charCodeAt(0) === 0xfeff) head = head.slice(1);
  return { encoding, bom: guessed.bom, head, empty: raw.length === 0, truncated: raw.length === HEAD_BYTES };
}

/** The file decoded to text (BOM stripped), streamed. */
export function openText(path: string, encoding: string): Readable {
  const source = createReadStream(path);
  const decoder = iconv.decodeStream(encoding, { stripBOM: true }) as unknown as NodeJS.ReadWriteStream;
  source.on('error', (err) => (decoder as unknown as Readable).destroy(err));
  return source.pipe(decoder) as unknown as Readable;
}

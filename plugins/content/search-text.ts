import type { FieldDefinition } from './field-types.js';

/**
 * The text side of full-text search (docs/features/search.md): what an entry's searched fields say as plain text, a
 * search term read as words and phrases, the query of each database's engine, and the highlights of an answer.
 * Nothing here reads a database.
 */

/** Words in the search index: runs of letters and digits (as SQLite's unicode61 tokenizer splits them). */
const WORD = /[\p{L}\p{N}]+/gu;
/** Words and phrases a search term is read as, at most. */
export const TERM_PARTS_MAX = 16;
/** The characters of a highlight's snippet, about. */
const SNIPPET = 160;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Rich text (sanitised HTML) as plain text: tags become spaces, the few entities sanitize-html writes are decoded. */
export function htmlText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x?[0-9a-f]+|[a-z]+[0-9]*);/gi, (all, name: string) => {
      if (Object.hasOwn(ENTITIES, name.toLowerCase())) return ENTITIES[name.toLowerCase()]!;
      const code =
        name.startsWith('#x') || name.startsWith('#X') ? parseInt(name.slice(2), 16) : name.startsWith('#') ? Number(name.slice(1)) : NaN;
      return Number.isInteger(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : all;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** A field's value as the text the index holds (rich text as plain text; Markdown and the rest as written). */
export function fieldText(f: FieldDefinition, value: unknown): string {
  if (typeof value !== 'string') return '';
  return f.type === 'richtext' ? htmlText(value) : value;
}

/** A search term read: the words to match as prefixes, and the quoted phrases to match as they stand. */
export interface SearchTerm {
  words: string[];
  phrases: string[][];
}

/** `blue tom "red apple"`: words blue and tom (prefixes), the phrase red apple; at most TERM_PARTS_MAX parts. */
export function readTerm(text: string): SearchTerm {
  const words: string[] = [];
  const phrases: string[][] = [];
  const lower = text.toLowerCase();
  let rest = lower.replace(/"([^"]*)"/g, (_all, inner: string) => {
    const phrase = inner.match(WORD) ?? [];
    if (phrase.length > 1) phrases.push(phrase);
    else if (phrase.length === 1) words.push(phrase[0]!);
    return ' ';
  });
  rest = rest.replace(/"/g, ' ');
  for (const w of rest.match(WORD) ?? []) if (!words.includes(w)) words.push(w);
  const parts = words.length + phrases.length;
  if (parts <= TERM_PARTS_MAX) return { words, phrases };
  return { words: words.slice(0, Math.max(0, TERM_PARTS_MAX - phrases.length)), phrases: phrases.slice(0, TERM_PARTS_MAX) };
}

/** The FTS5 MATCH expression: every word as a prefix and every phrase, all of which must match; null: nothing to match. */
export function fts5Query(term: SearchTerm): string | null {
  const parts = [...term.words.map((w) => `"${w}"*`), ...term.phrases.map((p) => `"${p.join(' ')}"`)];
  return parts.length ? parts.join(' ') : null;
}

/**
 * The MariaDB boolean-mode expression (`+word* +"a phrase"`); words shorter than `minWord` (innodb_ft_min_token_size)
 * are not in a FULLTEXT index and are left out. null: nothing left to match.
 */
export function booleanQuery(term: SearchTerm, minWord: number): string | null {
  const words = term.words.filter((w) => w.length >= minWord).map((w) => `+${w}*`);
  const phrases = term.phrases.filter((p) => p.some((w) => w.length >= minWord)).map((p) => `+"${p.join(' ')}"`);
  const parts = [...words, ...phrases];
  return parts.length ? parts.join(' ') : null;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A RegExp finding the term's words (as word prefixes) and phrases in text, case-insensitively. */
function matcher(term: SearchTerm): RegExp | null {
  const alternatives = [
    ...term.phrases.map((p) => p.map(escapeRegExp).join('[^\\p{L}\\p{N}]+')),
    ...term.words.map((w) => `${escapeRegExp(w)}[\\p{L}\\p{N}]*`),
  ];
  if (!alternatives.length) return null;
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})`, 'giu');
}

/**
 * A snippet of `text` around its first match, HTML-escaped, each match in <mark>...</mark>; null when the term does not
 * occur in it.
 */
export function highlight(text: string, term: SearchTerm): string | null {
  const re = matcher(term);
  if (!re || !text) return null;
  const first = re.exec(text);
  if (!first) return null;
  const start = Math.max(0, first.index - SNIPPET / 4);
  const end = Math.min(text.length, start + SNIPPET);
  const part = text.slice(start, end);
  let out = '';
  let at = 0;
  re.lastIndex = 0;
  for (let m = re.exec(part); m; m = re.exec(part)) {
    if (!m[0]) break;
    out += `${escapeHtml(part.slice(at, m.index))}<mark>${escapeHtml(m[0])}</mark>`;
    at = m.index + m[0].length;
  }
  out += escapeHtml(part.slice(at));
  return `${start > 0 ? '…' : ''}${out}${end < text.length ? '…' : ''}`;
}

/** `_highlight` of an entry as answered: field -> snippet, for the searched fields the answer holds. */
export function highlights(fields: FieldDefinition[], entry: Record<string, unknown>, term: SearchTerm): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    if (!Object.hasOwn(entry, f.name)) continue;
    const snippet = highlight(fieldText(f, entry[f.name]), term);
    if (snippet) out[f.name] = snippet;
  }
  return out;
}

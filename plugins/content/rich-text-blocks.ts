/**
 * WordPress block-editor structure kept through the rich-text policy (rich-text.ts): the block delimiter comments
 * (`<!-- wp:name {json} -->`, `<!-- /wp:name -->`, `<!-- wp:name {json} /-->`) and the classes blocks put on their
 * markup. Everything else stays as the policy says (every other comment, script, event handlers, other classes).
 *
 * A delimiter is kept only in this exact shape: `<!-- ` then `wp:` or `/wp:`, a name `[a-z][a-z0-9-]*` with an
 * optional `/[a-z][a-z0-9-]*` namespace part, optionally (opening and void delimiters only) a JSON object that parses,
 * then ` -->` or ` /-->`; at most 1,000 characters, and nothing in it may end a comment or start markup: no `<`, `>`
 * or `--` between the delimiters (WordPress itself writes those as `\u003c`, `\u003e`, `\u002d\u002d` in block
 * attributes), so a kept comment can never close early and let what follows run as markup. At most 20,000 per value.
 *
 * How: every valid delimiter is replaced by a placeholder the sanitiser keeps as text (a per-call random token of
 * private-use characters), the HTML is sanitised, and each placeholder standing in text (not inside a tag, where
 * an attribute value keeps it) is put back as its comment; one inside a tag is put back escaped, as the sanitiser
 * writes any attribute text.
 * No kernel imports (loaded by the worker pool's rich-text task).
 */
import { randomBytes } from 'node:crypto';

/** Longest delimiter comment kept (WordPress block attributes are small; a big one is dropped like any comment). */
const MAX_DELIMITER = 1000;
/** Most delimiters kept per value (the rest are dropped). */
const MAX_DELIMITERS = 20_000;

const DELIMITER = /<!--[ \t\r\n](\/)?wp:([a-z][a-z0-9-]*(?:\/[a-z][a-z0-9-]*)?)(?:[ \t\r\n](\{[^<>]*?\}))?[ \t\r\n](\/)?-->/g;

/**
 * Classes the block editor writes that the policy keeps (on every allowed tag): `wp-block-*` (with BEM parts,
 * `wp-block-cover__inner-container`), `wp-element-*`, `wp-image-<id>`, `has-*` (colours, font sizes, alignment
 * of text), `is-*` (styles and layouts), `align{left,right,center,wide,full,none}`, `size-*`, `columns-*` and
 * `blocks-gallery-*`; lower-case letters, digits, `-` and `_` only, 100 characters at most.
 */
export const BLOCK_CLASSES: readonly RegExp[] = [
  /^(?=[a-z0-9_-]{1,100}$)(?:wp-block-[a-z0-9]+(?:(?:-|__)[a-z0-9]+)*|wp-element-[a-z0-9-]+|wp-image-\d+|has-[a-z0-9-]+|is-[a-z0-9-]+|size-[a-z0-9-]+|columns-[a-z0-9-]+|blocks-gallery-[a-z0-9-]+|align(?:left|right|center|wide|full|none))$/,
];

/** Whether a matched delimiter comment is one the policy keeps (see the file's comment). */
function validDelimiter(text: string, closing: boolean, attrs: string | undefined, selfClosing: boolean): boolean {
  if (text.length > MAX_DELIMITER) return false;
  if (closing && (attrs !== undefined || selfClosing)) return false;
  const inner = text.slice(4, -3);
  if (inner.includes('--') || inner.includes('<') || inner.includes('>')) return false;
  if (attrs === undefined) return true;
  try {
    const parsed = JSON.parse(attrs) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/**
 * `sanitize` applied to `html` with its valid block delimiters kept (see the file's comment). Idempotent when
 * `sanitize` is: a kept delimiter is found and kept again, the rest of the value is sanitised as before.
 */
export function withBlockDelimiters(html: string, sanitize: (html: string) => string): string {
  if (!html.includes('<!--')) return sanitize(html);
  const kept: string[] = [];
  const token = `\uE000${randomBytes(12).toString('hex')}`;
  const swapped = html.replace(
    DELIMITER,
    (text, close: string | undefined, _name: string, attrs: string | undefined, self: string | undefined) => {
      if (kept.length >= MAX_DELIMITERS || !validDelimiter(text, !!close, attrs, !!self)) return text;
      kept.push(text);
      return `${token}${kept.length - 1}\uE001`;
    },
  );
  if (!kept.length) return sanitize(html);
  const out = sanitize(swapped);
  // Put back the placeholders that stand in text; one inside a tag (an attribute value) is dropped.
  const placeholder = new RegExp(`${token}(\\d+)\\uE001`, 'g');
  let result = '';
  let last = 0;
  for (const m of out.matchAll(placeholder)) {
    const before = out.slice(last, m.index);
    result += before;
    last = m.index + m[0].length;
    const text = kept[Number(m[1])] ?? '';
    result += insideTag(out, m.index) ? escapeAttribute(text) : text;
  }
  return result + out.slice(last);
}

/** A delimiter that stood in an attribute value, written as the sanitiser writes any other attribute text. */
const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Whether `index` of sanitised HTML is inside a tag (its last `<` comes after its last `>`; text never holds a raw `<`). */
function insideTag(html: string, index: number): boolean {
  return html.lastIndexOf('<', index) > html.lastIndexOf('>', index);
}

/**
 * The rich-text policy: what HTML a `richtext` field may store, and the Markdown renderer of `markdown`
 * fields. sanitize-html (htmlparser2 underneath, no DOM needed, maintained and used by many CMSs) applies
 * an allow list: anything not listed (script, style, iframe, event handlers, class, style attributes,
 * javascript: and data: URLs, comments) is dropped; WordPress block delimiter comments and block classes of a
 * checked shape are kept (rich-text-blocks.ts). Sanitising is idempotent: a clean value passes
 * unchanged, so values may be sanitised again on any later write.
 *
 * No kernel imports: the worker pool's task file (rich-text-task.ts) loads this module too.
 */
import { createRequire } from 'node:module';
import { Marked } from 'marked';
import type sanitizeHtmlFn from 'sanitize-html';
import { BLOCK_CLASSES, withBlockDelimiters } from './rich-text-blocks.js';

const require = createRequire(import.meta.url);
let loaded: typeof sanitizeHtmlFn | undefined;
/** sanitize-html (htmlparser2 and friends) loads on the first rich-text value sanitised, not at start. */
const sanitizeHtml = (input: string, options: sanitizeHtmlFn.IOptions): string =>
  (loaded ??= require('sanitize-html') as typeof sanitizeHtmlFn)(input, options);

/** Tags a rich-text value may contain. */
// prettier-ignore
export const RICH_TEXT_TAGS: readonly string[] = [
  'p', 'br', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'b', 'em', 'i', 'u', 's', 'del', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'a', 'img', 'hr', 'figure', 'figcaption', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span',
];

/** URL schemes of links and images; relative URLs (`/files/...`, `#top`, `page.html`) are allowed too. */
export const RICH_TEXT_SCHEMES: readonly string[] = ['http', 'https', 'mailto'];

/** Link relations forced on a link that opens a new window (the new page gets no handle on this one). A link's
 * `target` is kept only when it is `_blank` or `_self`. */
const BLANK_REL = ['noopener', 'noreferrer'];

/** The sanitize-html options of the policy (exported for readers and tests; do not mutate). */
export const RICH_TEXT_POLICY: Readonly<sanitizeHtmlFn.IOptions> = {
  allowedTags: [...RICH_TEXT_TAGS],
  allowedAttributes: {
    a: ['href', 'title', 'target', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    ol: ['start'],
    th: ['colspan', 'rowspan'],
    td: ['colspan', 'rowspan'],
  },
  allowedSchemes: [...RICH_TEXT_SCHEMES],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite'],
  allowProtocolRelative: false,
  allowedStyles: {},
  // Only the block editor's classes (rich-text-blocks.ts BLOCK_CLASSES), on any allowed tag.
  allowedClasses: { '*': [...BLOCK_CLASSES] },
  allowVulnerableTags: false,
  disallowedTagsMode: 'discard',
  // Their text is not content (script source, CSS, a frame's fallback): dropped with the tag.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'title', 'head', 'xml'],
  transformTags: {
    a: (tagName, attribs) => {
      const { target, rel, ...rest } = attribs;
      if (target !== '_blank')
        return {
          tagName,
          attribs: target === '_self' ? { ...rest, ...(rel ? { rel } : {}), target } : { ...rest, ...(rel ? { rel } : {}) },
        };
      const rels = (rel ?? '').split(/\s+/).filter(Boolean);
      for (const r of BLANK_REL) if (!rels.includes(r)) rels.push(r);
      return { tagName, attribs: { ...rest, target, rel: rels.join(' ') } };
    },
  },
  // An image whose source was dropped (javascript:, data:) is dropped whole.
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

/**
 * Outputs of the policy seen lately (a value that is known clean is not parsed again: the worker pool
 * sanitises a bulk write's values, then the write's validation meets them once more). Bounded by count and
 * by total characters; the oldest go first.
 */
const known = new Set<string>();
const KNOWN_MAX = 2000;
const KNOWN_MAX_CHARS = 8 * 1024 * 1024;
let knownChars = 0;

/** Records values that are outputs of sanitizeRichText (from the worker pool): their next sanitising is a look-up. */
export function rememberClean(values: Iterable<string>): void {
  for (const v of values) {
    if (v.length > KNOWN_MAX_CHARS / 4 || known.has(v)) continue;
    known.add(v);
    knownChars += v.length;
    while (known.size > KNOWN_MAX || knownChars > KNOWN_MAX_CHARS) {
      const oldest = known.values().next().value as string;
      known.delete(oldest);
      knownChars -= oldest.length;
    }
  }
}

/** The HTML as the policy allows it (see RICH_TEXT_POLICY). Idempotent. */
export function sanitizeRichText(html: string): string {
  if (known.has(html)) return html;
  // Removing a tag keeps its children, which can leave markup the parser reads differently the next time
  // (`<p><A<script><p>` -> `<p><p></p></p>`, an unclosed cell inside the next one): the stored value must be a
  // fixpoint, so a value the policy changed gets passes until it no longer changes. Clean input takes one pass.
  // WordPress block delimiter comments of a valid shape are kept around the passes (rich-text-blocks.ts).
  return withBlockDelimiters(html, (value) => {
    let input = value;
    let out = sanitizeHtml(input, RICH_TEXT_POLICY);
    for (let pass = 0; pass < 4 && out !== input; pass++) {
      input = out;
      out = sanitizeHtml(input, RICH_TEXT_POLICY);
    }
    return out;
  });
}

const markdown = new Marked({ gfm: true, breaks: false, async: false });

/** Markdown source -> HTML under the rich-text policy (marked, then sanitizeRichText): safe to put in a page. */
export function renderMarkdown(source: string): string {
  return sanitizeRichText(markdown.parse(source, { async: false }) as string);
}

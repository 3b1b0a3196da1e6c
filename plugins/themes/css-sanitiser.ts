import { createRequire } from 'node:module';
import type * as CssTree from 'css-tree';
import type { Atrule, CssNode, Declaration, List, ListItem, Rule } from 'css-tree';
import { bracketDepth } from '../../lib/text/bracket-depth.js';

export interface SanitisedCss {
  /** The CSS that remains (re-generated from the cleaned syntax tree; it parses without errors). */
  css: string;
  /** What was removed, each label once, e.g. ['url()', '@import', 'html']. */
  removed: string[];
}

/** At-rules kept (vendor prefixes ignored); every other at-rule is removed, @import and @charset included. */
const ALLOWED_AT_RULES = new Set([
  'media', 'supports', 'container', 'layer', 'keyframes', 'font-face', 'page', 'property', 'counter-style',
  'font-feature-values', 'font-palette-values', 'scope', 'starting-style',
]);
/** Functions that fetch a resource or run script (after decoding escapes and dropping a vendor prefix). */
const BLOCKED_FUNCTIONS: Record<string, string> = {
  url: 'url()', src: 'url()', expression: 'expression()', image: 'image()', 'image-set': 'image-set()',
  element: 'element()', 'cross-fade': 'cross-fade()', paint: 'paint()',
};
/** Properties that bind behaviour or script (IE behavior, Mozilla XBL binding, Opera links). */
const BLOCKED_PROPERTIES: Record<string, string> = {
  behavior: 'behavior:', binding: '-moz-binding', link: '-o-link', 'link-source': '-o-link',
};
/**
 * Backstop on the decoded text of a node (escapes resolved, comments and whitespace dropped, lower
 * case): catches what the tree checks might miss, e.g. `jav/**\/ascript:` or `\75 rl(` in a raw value.
 */
const TEXT_DANGERS: Array<[string, string]> = [
  ['javascript:', 'javascript:'], ['vbscript:', 'javascript:'],
  ['expression(', 'expression()'], ['url(', 'url()'], ['behavior:', 'behavior:'], ['binding:', '-moz-binding'], ['@import', '@import'],
];

const require = createRequire(import.meta.url);
let loaded: typeof CssTree | undefined;
/** css-tree (a few MB resident) is loaded when a theme's CSS is first checked, not at start; its CommonJS build, synchronously. */
const tree = (): typeof CssTree => (loaded ??= require('css-tree') as typeof CssTree);

const decode = (name: string): string => tree().ident.decode(name).toLowerCase();
const unprefixed = (name: string): string => name.replace(/^-[a-z]+-/, '');

/** Markup: `<` followed by a tag name, `/`, `!` or `?` (a `<` in a range media query is not). */
const HTML_TAG = /<[a-z/!?]/i;
const SCRIPT_TAG = /<\/?script/i;

/** The text with CSS escapes decoded and comments removed, lower case. */
function decodeText(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 2;
      continue;
    }
    out += text[i];
    i++;
  }
  return tree().ident.decode(out).toLowerCase();
}

/** Whether text holds markup, checked as decoded text (`\3c script\3e` is `<script>`). */
export function holdsMarkup(text: string): boolean {
  return HTML_TAG.test(decodeText(text));
}

function textDangers(text: string): string[] {
  const decoded = decodeText(text);
  // Keywords as a browser would match them: also with whitespace and comments between the letters removed.
  const squashed = decoded.replace(/\s+/g, '');
  const found: string[] = [];
  if (HTML_TAG.test(decoded)) found.push(SCRIPT_TAG.test(decoded) ? '<script>' : 'html');
  for (const [needle, label] of TEXT_DANGERS) if (squashed.includes(needle) && !found.includes(label)) found.push(label);
  return found;
}

/** Every dangerous construct inside a node (a value, a prelude, a declaration), found by walking its tree. */
function dangersIn(node: CssNode): string[] {
  const found = new Set<string>();
  tree().walk(node, (n) => {
    switch (n.type) {
      case 'Url':
        found.add('url()');
        break;
      case 'Function': {
        const name = unprefixed(decode(n.name));
        const label = BLOCKED_FUNCTIONS[name] ?? (name.includes('expression') ? 'expression()' : undefined);
        if (label) found.add(label);
        break;
      }
      case 'String':
        for (const d of textDangers(n.value)) found.add(d);
        break;
      case 'Raw':
        for (const d of textDangers(n.value)) found.add(d);
        break;
      case 'Declaration': {
        const property = decode(n.property);
        const label = property.startsWith('--') ? undefined : BLOCKED_PROPERTIES[unprefixed(property)];
        if (label) found.add(label);
        break;
      }
      case 'Atrule': {
        const name = unprefixed(decode(n.name));
        if (!ALLOWED_AT_RULES.has(name)) found.add(`@${name}`);
        break;
      }
      case 'CDO':
      case 'CDC':
        found.add('html');
        break;
      default:
        break;
    }
  });
  // The generated text of the node, decoded: the backstop for what the node types do not show.
  for (const d of textDangers(tree().generate(node))) found.add(d);
  return [...found];
}

type Removed = Set<string>;

function removeItem(list: List<CssNode>, item: ListItem<CssNode>, labels: string[], removed: Removed): void {
  list.remove(item);
  for (const l of labels) removed.add(l);
}

function cleanDeclaration(node: Declaration): string[] {
  if (node.value.type === 'Raw') {
    const found = textDangers(node.value.value);
    return found.length ? found : ['invalid declaration'];
  }
  return dangersIn(node);
}

function cleanRule(node: Rule, removed: Removed): string[] {
  if (node.prelude.type === 'Raw') {
    const found = textDangers(node.prelude.value);
    return found.length ? found : ['invalid selector'];
  }
  const inSelector = dangersIn(node.prelude);
  if (inSelector.length) return inSelector;
  cleanList(node.block.children, removed);
  return [];
}

function cleanAtrule(node: Atrule, removed: Removed): string[] {
  const name = unprefixed(decode(node.name));
  if (name === 'import') return ['@import'];
  if (!ALLOWED_AT_RULES.has(name)) return [`@${name}`];
  if (node.prelude) {
    if (node.prelude.type === 'Raw') {
      const found = textDangers(node.prelude.value);
      return found.length ? found : ['invalid at-rule'];
    }
    const inPrelude = dangersIn(node.prelude);
    if (inPrelude.length) return inPrelude;
  }
  if (node.block) cleanList(node.block.children, removed);
  return [];
}

/** Removes the offending children of a stylesheet or block, recursing into rules and at-rules. */
function cleanList(list: List<CssNode>, removed: Removed): void {
  const items: Array<ListItem<CssNode>> = [];
  list.forEach((_data, item) => {
    items.push(item);
  });
  for (const item of items) {
    const node = item.data;
    let labels: string[];
    switch (node.type) {
      case 'Declaration':
        labels = cleanDeclaration(node);
        break;
      case 'Rule':
        labels = cleanRule(node, removed);
        break;
      case 'Atrule':
        labels = cleanAtrule(node, removed);
        break;
      case 'Comment':
        list.remove(item);
        continue;
      case 'Raw': {
        const found = textDangers(node.value);
        labels = found.length ? found : node.value.trim() === '' || node.value.trim() === ';' ? [] : ['invalid css'];
        list.remove(item);
        for (const l of labels) removed.add(l);
        continue;
      }
      default:
        // CDO/CDC (`<!--`, `-->`) and anything unexpected at this level.
        labels = node.type === 'CDO' || node.type === 'CDC' ? ['html'] : ['invalid css'];
        break;
    }
    if (labels.length) removeItem(list, item, labels, removed);
  }
}

/** Deepest bracket nesting accepted in custom CSS (real stylesheets stay far below). */
const MAX_CSS_NESTING = 64;

function parseStylesheet(css: string): { ast: CssNode; errors: number } {
  let errors = 0;
  const ast = tree().parse(css, {
    parseCustomProperty: true,
    positions: false,
    onParseError: () => {
      errors++;
    },
  });
  return { ast, errors };
}

/**
 * Sanitises custom CSS with a real CSS parser (css-tree): parse, walk, remove offending nodes,
 * generate, then verify that the result parses cleanly and holds nothing dangerous. Removed:
 * `url()` and other resource-loading functions (image-set(), image(), element(), cross-fade(),
 * src()), `expression()`, `javascript:`/`vbscript:`, `behavior`/`-moz-binding`, @import, @charset,
 * @namespace and every at-rule outside a small allow-list, and anything holding HTML (`<`). Keyword
 * checks run on names with CSS escapes decoded (`\75 rl(` is `url(`, `@\69mport` is `@import`). A
 * declaration or rule that does not parse is removed whole. If the verification fails the result is
 * empty (fail closed).
 */
export function sanitiseCss(input: string): SanitisedCss {
  if (!input.trim()) return { css: '', removed: [] };
  // css-tree parses and walks recursively: thousands of nested brackets would overflow the stack.
  if (bracketDepth(input) > MAX_CSS_NESTING) return { css: '', removed: [`css nested deeper than ${MAX_CSS_NESTING} levels`] };
  try {
    return sanitiseParsed(input);
  } catch (err) {
    if (err instanceof RangeError) return { css: '', removed: ['css too complex to check'] };
    throw err;
  }
}

function sanitiseParsed(input: string): SanitisedCss {
  const removed: Removed = new Set();
  const { ast } = parseStylesheet(input);
  if (ast.type !== 'StyleSheet') return { css: '', removed: ['invalid css'] };
  cleanList(ast.children, removed);
  const css = tree().generate(ast);
  if (!css) return { css, removed: [...removed] };
  const check = parseStylesheet(css);
  if (check.errors || holdsMarkup(css) || findDangerousConstructs(css).length) {
    return { css: '', removed: [...new Set([...removed, 'invalid css'])] };
  }
  return { css, removed: [...removed] };
}

/**
 * Every dangerous construct in a stylesheet, found by parsing and walking it (used to verify the
 * sanitiser's output, and by tests). Empty for a clean stylesheet.
 */
export function findDangerousConstructs(css: string): string[] {
  const { ast } = parseStylesheet(css);
  const found = new Set(dangersIn(ast));
  tree().walk(ast, (n) => {
    if (n.type === 'Declaration' && n.value.type === 'Raw') for (const d of textDangers(n.value.value)) found.add(d);
  });
  return [...found];
}

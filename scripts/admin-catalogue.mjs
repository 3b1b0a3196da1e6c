// The admin UI's message catalogue check (test/unit/admin-ui-catalogue.test.ts runs it; run it by hand as
// `node scripts/admin-catalogue.mjs` for the list of literals left in admin/src).
//
// - Every .svelte file under admin/src is parsed with the Svelte compiler. A text node, or a user-visible
//   attribute (aria-label, title, placeholder, alt, label, …), that holds a word (a letter) instead of a
//   catalogue call is a literal; so is a string literal with a letter shown through {…} in the markup,
//   and a literal message given to toast.*(), confirm() or alert() in a script (also in .ts files).
//   Not literals: text inside <code>, <kbd>, <pre>, <samp>, and inside an element marked translate="no"
//   (names, identifiers and formats that stay as they are in every language).
// - Every key the code names ($_('area.key'), t('area.key')) must be in English and German; German must
//   have exactly English's keys, each message must parse as ICU MessageFormat, and a German message must
//   use the same arguments as the English one.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'svelte/compiler';
import { parse as parseIcu, TYPE } from '@formatjs/icu-messageformat-parser';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ADMIN_SRC = join(ROOT, 'admin', 'src');
export const MESSAGES = join(ADMIN_SRC, 'i18n', 'messages');
export const LOCALES_CHECKED = ['en', 'de'];

const VISIBLE_ATTRIBUTES = new Set([
  'aria-label',
  'aria-description',
  'aria-roledescription',
  'aria-valuetext',
  'title',
  'placeholder',
  'alt',
  'label',
  // Props of this UI's own components that are shown as they are.
  'message',
  'confirmLabel',
  'confirm',
  'submit',
  'applyLabel',
  'what',
]);
const VERBATIM_ELEMENTS = new Set(['code', 'kbd', 'pre', 'samp', 'style', 'script']);
const MESSAGE_CALLS = /^(toast\.(success|error|info|warning|warn)|confirm|alert|prompt|window\.confirm)$/;
const WORD = /\p{L}/u;
const ENTITY = /&[a-z]+;|&#\d+;/gi;

const hasWord = (s) => WORD.test(String(s).replace(ENTITY, ''));

function files(dir, test) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, test));
    else if (test(e.name)) out.push(p);
  }
  return out.sort();
}
export const svelteFiles = () => files(ADMIN_SRC, (n) => n.endsWith('.svelte'));
export const scriptFiles = () => files(ADMIN_SRC, (n) => /\.ts$/.test(n) && !n.endsWith('.d.ts') && !n.endsWith('.gen.ts'));

function lineOf(source, index) {
  return source.slice(0, index).split('\n').length;
}

function calleeName(node) {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && !node.computed) {
    const obj = calleeName(node.object);
    return obj ? `${obj}.${node.property.name}` : null;
  }
  return null;
}

/** String literals with a word in an expression shown as text: not call arguments (catalogue calls and
 *  formatters), not object keys, not compared values, not computed member names. */
function expressionLiterals(node, found, parent = null, key = null) {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) expressionLiterals(n, found, parent, key);
    return;
  }
  if (node.type === 'CallExpression' || node.type === 'NewExpression') {
    expressionLiterals(node.callee, found, node, 'callee');
    return;
  }
  if (node.type === 'BinaryExpression' && /^[!=]==?$/.test(node.operator)) return;
  if (node.type === 'MemberExpression') {
    expressionLiterals(node.object, found, node, 'object');
    return;
  }
  if (node.type === 'Property') {
    expressionLiterals(node.value, found, node, 'value');
    return;
  }
  if (node.type === 'Literal' && typeof node.value === 'string' && hasWord(node.value)) found.push({ at: node.start, text: node.value });
  if (node.type === 'TemplateLiteral') {
    for (const q of node.quasis) if (hasWord(q.value.cooked ?? q.value.raw)) found.push({ at: q.start, text: q.value.raw });
    expressionLiterals(node.expressions, found, node, 'expressions');
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' || k === 'start' || k === 'end' || k === 'loc' || k === 'metadata') continue;
    if (v && typeof v === 'object') expressionLiterals(v, found, node, k);
  }
}

/** Literal messages given to toast.*() / confirm() / alert() anywhere in a script program. */
function scriptLiterals(node, found) {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) scriptLiterals(n, found);
    return;
  }
  if (node.type === 'CallExpression' && MESSAGE_CALLS.test(calleeName(node.callee) ?? '')) {
    const first = node.arguments[0];
    const texts = [];
    if (first) expressionLiterals(first, texts);
    found.push(...texts);
  }
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' || k === 'start' || k === 'end' || k === 'loc' || k === 'metadata') continue;
    if (v && typeof v === 'object') scriptLiterals(v, found);
  }
}

function attributeLiterals(attr, found) {
  if (attr.type !== 'Attribute' || !VISIBLE_ATTRIBUTES.has(attr.name) || attr.value === true) return;
  const parts = Array.isArray(attr.value) ? attr.value : [attr.value];
  for (const p of parts) {
    if (p.type === 'Text' && hasWord(p.data)) found.push({ at: p.start, text: `${attr.name}="${p.data}"` });
    else if (p.type === 'ExpressionTag') expressionLiterals(p.expression, found);
  }
}

function isVerbatim(node) {
  if (VERBATIM_ELEMENTS.has(node.name)) return true;
  return (node.attributes ?? []).some(
    (a) => a.type === 'Attribute' && a.name === 'translate' && Array.isArray(a.value) && a.value[0]?.data === 'no',
  );
}

function markupLiterals(node, found) {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) markupLiterals(n, found);
    return;
  }
  switch (node.type) {
    case 'Text':
      if (hasWord(node.data)) found.push({ at: node.start, text: node.data.trim() });
      return;
    case 'ExpressionTag':
      expressionLiterals(node.expression, found);
      return;
    case 'Comment':
    case 'HtmlTag':
      return;
  }
  if ('attributes' in node && 'fragment' in node) {
    if (isVerbatim(node)) return;
    for (const a of node.attributes) attributeLiterals(a, found);
    markupLiterals(node.fragment, found);
    return;
  }
  for (const k of ['fragment', 'nodes', 'consequent', 'alternate', 'body', 'fallback', 'pending', 'then', 'catch'])
    markupLiterals(node[k], found);
}

/** The literals of one file: [{ line, text }]. */
export function literalsOf(file) {
  const source = readFileSync(file, 'utf8');
  const found = [];
  if (file.endsWith('.svelte')) {
    const ast = parse(source, { modern: true });
    markupLiterals(ast.fragment, found);
    if (ast.instance) scriptLiterals(ast.instance.content, found);
    if (ast.module) scriptLiterals(ast.module.content, found);
    return found.map((f) => ({ line: lineOf(source, f.at), text: f.text.replace(/\s+/g, ' ').slice(0, 80) }));
  }
  const wrapped = `<script lang="ts">${source}</script>`;
  const ast = parse(wrapped, { modern: true });
  scriptLiterals(ast.instance.content, found);
  return found.map((f) => ({ line: lineOf(wrapped, f.at), text: f.text.replace(/\s+/g, ' ').slice(0, 80) }));
}

/** { 'area.key': message } of messages/<locale>/*.json (each file's keys prefixed with its name). */
export function loadCatalogue(locale) {
  const out = {};
  const flatten = (prefix, v) => {
    if (typeof v === 'string') out[prefix] = v;
    else for (const [k, w] of Object.entries(v)) flatten(`${prefix}.${k}`, w);
  };
  for (const f of files(join(MESSAGES, locale), (n) => n.endsWith('.json')))
    flatten(relative(join(MESSAGES, locale), f).replace(/\.json$/, ''), JSON.parse(readFileSync(f, 'utf8')));
  return out;
}

const KEY_USE = /(?:\$_|\bt)\(\s*(['"])([\w.-]+)\1/g;
/** Every catalogue key named literally in admin/src: { key: 'file:line' }. */
export function keysUsed() {
  const out = {};
  for (const f of [...svelteFiles(), ...scriptFiles()]) {
    const source = readFileSync(f, 'utf8');
    for (const m of source.matchAll(KEY_USE)) out[m[2]] ??= `${relative(ROOT, f)}:${lineOf(source, m.index)}`;
  }
  return out;
}

/** The argument names of an ICU message (throws on a message that does not parse). */
export function icuArguments(message) {
  const names = new Set();
  const visit = (els) => {
    for (const el of els) {
      if (el.type !== TYPE.literal && el.type !== TYPE.pound && 'value' in el && typeof el.value === 'string') names.add(el.value);
      if (el.options) for (const o of Object.values(el.options)) visit(o.value);
      if (el.children) visit(el.children);
    }
  };
  visit(parseIcu(message, { ignoreTag: true }));
  return [...names].sort();
}

/** Problems with the catalogues themselves and with the keys the code uses. */
export function catalogueProblems() {
  const problems = [];
  const cats = Object.fromEntries(LOCALES_CHECKED.map((code) => [code, loadCatalogue(code)]));
  const en = cats.en;
  for (const [key, where] of Object.entries(keysUsed()))
    for (const [code, cat] of Object.entries(cats))
      if (!(key in cat)) problems.push(`${where}: key '${key}' is missing from the ${code} catalogue`);
  for (const [code, cat] of Object.entries(cats)) {
    if (code === 'en') continue;
    for (const key of Object.keys(en)) if (!(key in cat)) problems.push(`${code} lacks '${key}' (en has it)`);
    for (const key of Object.keys(cat)) if (!(key in en)) problems.push(`${code} has '${key}', which en does not`);
  }
  for (const [code, cat] of Object.entries(cats))
    for (const [key, msg] of Object.entries(cat)) {
      if (/'[{}#|]/.test(msg)) problems.push(`${code} '${key}' quotes ICU syntax with an apostrophe (use ’ or \\" instead): ${msg}`);
      try {
        icuArguments(msg);
      } catch (err) {
        problems.push(`${code} '${key}' is not ICU MessageFormat: ${err.message}`);
      }
    }
  for (const [code, cat] of Object.entries(cats)) {
    if (code === 'en') continue;
    for (const key of Object.keys(en)) {
      if (!(key in cat)) continue;
      try {
        const a = icuArguments(en[key]).join(',');
        const b = icuArguments(cat[key]).join(',');
        if (a !== b) problems.push(`'${key}': ${code} uses {${b}}, en uses {${a}}`);
      } catch {
        /* reported above */
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let total = 0;
  for (const f of [...svelteFiles(), ...scriptFiles()]) {
    const lits = literalsOf(f);
    if (!lits.length) continue;
    total += lits.length;
    console.log(`${relative(ROOT, f)} (${lits.length})`);
    if (process.argv.includes('--verbose')) for (const l of lits) console.log(`  ${l.line}: ${l.text}`);
  }
  for (const p of catalogueProblems()) console.log(p);
  console.log(`${total} literals`);
}

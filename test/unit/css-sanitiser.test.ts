import { expect } from 'chai';
import * as csstree from 'css-tree';
import { sanitiseCss } from '../../plugins/themes/css-sanitiser.js';

/**
 * Known CSS injection payloads. Each runs between two safe rules (`.keep-before`, and `.keep-after`
 * unless the payload leaves a selector open, as raw HTML does); the output must hold none of the
 * dangerous constructs, checked by re-parsing it with css-tree and walking the tree, and the safe
 * rules must survive.
 */
const CORPUS: Array<{ name: string; css: string; removed: string[]; closed?: boolean }> = [
  { name: 'url(javascript:)', css: '.x{background:url(javascript:alert(1))}', removed: ['url()'] },
  { name: 'quoted url', css: '.x{background:url("https://evil.example/x.png")}', removed: ['url()'] },
  { name: 'escaped letter u\\rl(', css: '.x{background:u\\rl(javascript:alert(1))}', removed: ['url()', 'javascript:'] },
  { name: 'hex escape \\75 rl(', css: '.x{background:\\75 rl(x.png)}', removed: ['url()'] },
  { name: 'six-digit unicode escape \\000075rl(', css: '.x{background:\\000075rl(x.png)}', removed: ['url()'] },
  { name: 'upper case URL(', css: '.x{background:URL(x.png)}', removed: ['url()'] },
  { name: 'comment inside url: ur/**/l(', css: '.x{background:ur/**/l(x.png)}', removed: ['url()'] },
  { name: '@import url()', css: '@import url(evil.css);', removed: ['@import'] },
  { name: '@import string', css: '@import "evil.css";', removed: ['@import'] },
  { name: 'escaped @\\69mport', css: '@\\69mport "evil.css";', removed: ['@import'] },
  { name: 'expression()', css: '.x{width:expression(alert(1))}', removed: ['expression()'] },
  { name: 'escaped e\\xpression(', css: '.x{width:e\\xpression(alert(1))}', removed: ['expression()'] },
  { name: 'comment inside expression', css: '.x{width:expr/**/ession(alert(1))}', removed: ['expression()'] },
  { name: 'behavior:url(.htc)', css: '.x{behavior:url(x.htc)}', removed: ['behavior:'] },
  { name: '-ms-behavior', css: '.x{-ms-behavior:url(x.htc)}', removed: ['behavior:'] },
  { name: '-moz-binding', css: '.x{-moz-binding:url("http://evil.example/xbl.xml#x")}', removed: ['-moz-binding'] },
  { name: 'closing style and script', css: '</style><script>alert(1)</script>', removed: ['<script>'], closed: false },
  { name: 'img onerror', css: '<img src=x onerror=alert(1)>', removed: ['html'], closed: false },
  { name: 'script in a string', css: '.x::after{content:"</style><script>alert(1)</script>"}', removed: ['<script>'] },
  { name: 'escaped script in a string \\3c script\\3e', css: '.x::after{content:"\\3c script\\3e"}', removed: ['<script>'] },
  { name: 'markup in an attribute selector', css: 'a[title="</style><b>"]{color:red}', removed: ['html'] },
  {
    name: 'nested @media/@supports with url()',
    css: '@media screen{@supports (display:grid){.x{background:url(x.png)}.nested-keep{color:green}}}',
    removed: ['url()'],
  },
  { name: 'url() in a @supports condition', css: '@supports (background:url(x.png)){.x{color:red}}', removed: ['url()'] },
  { name: '@font-face src:url()', css: '@font-face{font-family:Evil;src:url(evil.woff2)}', removed: ['url()'] },
  { name: 'image-set()', css: '.x{background-image:image-set("x.png" 1x,"y.png" 2x)}', removed: ['image-set()'] },
  { name: '-webkit-image-set()', css: '.x{background-image:-webkit-image-set("x.png" 1x)}', removed: ['image-set()'] },
  { name: 'javascript: split by a comment', css: '.x{background:jav/**/ascript:alert(1)}', removed: ['javascript:'] },
  { name: 'javascript: in a string', css: '.x{--link:"javascript:alert(1)"}', removed: ['javascript:'] },
  { name: 'escaped javascript: \\6a avascript', css: '.x{background:\\6a avascript:alert(1)}', removed: ['javascript:'] },
  { name: '@charset', css: '@charset "utf-7";', removed: ['@charset'] },
  { name: '@namespace with url()', css: '@namespace svg url(http://www.w3.org/2000/svg);', removed: ['@namespace'] },
  { name: '@-moz-document', css: '@-moz-document url-prefix(){.x{color:red}}', removed: ['@document'] },
  { name: 'CDO/CDC comment tokens', css: '<!-- .y{color:red} -->', removed: ['html'] },
  { name: 'url() in a custom property', css: ':root{--bg:url(x.png)}', removed: ['url()'] },
  { name: 'src() function', css: '.x{background:src("x.png")}', removed: ['url()'] },
  { name: 'unterminated url', css: '.x{background:url(x.png', removed: ['url()'], closed: false },
];

const BLOCKED_FUNCTIONS = new Set(['url', 'src', 'expression', 'image', 'image-set', 'element', 'cross-fade']);
const ALLOWED_AT_RULES = new Set([
  'media',
  'supports',
  'container',
  'layer',
  'keyframes',
  'font-face',
  'page',
  'property',
  'counter-style',
  'font-feature-values',
  'font-palette-values',
  'scope',
  'starting-style',
]);
const name = (raw: string) =>
  csstree.ident
    .decode(raw)
    .toLowerCase()
    .replace(/^-[a-z]+-/, '');

/** The test's own check: re-parse, then walk; independent of the sanitiser's code. */
function assertSafe(css: string, what: string): void {
  const errors: string[] = [];
  const ast = csstree.parse(css, { parseCustomProperty: true, onParseError: (e) => errors.push(e.message) });
  expect(errors, `${what}: the output must parse`).to.deep.equal([]);
  csstree.walk(ast, (node) => {
    expect(node.type, `${what}: ${node.type}`).to.not.be.oneOf(['Url', 'Raw', 'CDO', 'CDC']);
    if (node.type === 'Function') expect(BLOCKED_FUNCTIONS.has(name(node.name)), `${what}: ${node.name}()`).to.equal(false);
    if (node.type === 'Atrule') expect(ALLOWED_AT_RULES.has(name(node.name)), `${what}: @${node.name}`).to.equal(true);
    if (node.type === 'Declaration') expect(name(node.property), `${what}: ${node.property}`).to.not.be.oneOf(['behavior', 'binding']);
    if (node.type === 'String') expect(node.value, what).to.not.match(/<[a-z/!]|javascript:/i);
    if (node.type === 'Identifier') expect(name(node.name), what).to.not.match(/javascript|expression/);
  });
  const decoded = csstree.ident.decode(css).toLowerCase();
  expect(decoded, what).to.not.match(/<[a-z/!?]|javascript:|expression\(|url\(|@import|behavior/);
}

describe('css sanitiser (css-tree)', function () {
  for (const c of CORPUS) {
    it(`removes ${c.name} and keeps the safe rules beside it`, function () {
      const input = `.keep-before{color:red}\n${c.css}\n${c.closed === false ? '' : '.keep-after{color:blue}'}`;
      const { css, removed } = sanitiseCss(input);
      assertSafe(css, c.name);
      expect(removed, `${c.name}: ${JSON.stringify(removed)}`).to.include.members(c.removed);
      expect(css).to.contain('.keep-before{color:red}');
      if (c.closed !== false) expect(css).to.contain('.keep-after{color:blue}');
    });
  }

  it('keeps safe modern CSS unchanged in meaning: variables, calc, nesting-free selectors, range media queries, keyframes', function () {
    const input = [
      ':root{--accent:#0ea5e9;--gap:calc(4px * 2)}',
      '.card > .title:hover::before{content:"a < b";color:var(--accent)!important}',
      '@media (width < 600px){.card{padding:var(--gap)}}',
      '@keyframes pulse{from{opacity:1}to{opacity:.5}}',
      '@layer base{.btn{border-radius:4px}}',
    ].join('\n');
    const { css, removed } = sanitiseCss(input);
    expect(removed).to.deep.equal([]);
    assertSafe(css.replace('"a < b"', '""'), 'safe css');
    for (const part of ['--accent:#0ea5e9', 'content:"a < b"', '!important', '@keyframes pulse', '@layer base', '(width<600px)'])
      expect(css).to.contain(part);
  });

  it('answers empty CSS for empty input and removes unparseable declarations', function () {
    expect(sanitiseCss('')).to.deep.equal({ css: '', removed: [] });
    expect(sanitiseCss('   ')).to.deep.equal({ css: '', removed: [] });
    const { css, removed } = sanitiseCss('.a{color:red;;; background: {}}');
    expect(css).to.equal('.a{color:red}');
    expect(removed).to.deep.equal(['invalid declaration']);
  });

  it('refuses CSS nested thousands of levels deep instead of overflowing the stack (found by the fuzz suite)', () => {
    expect(sanitiseCss(`a { width: calc(${'('.repeat(2000)}1px${')'.repeat(2000)}) }`)).to.deep.equal({
      css: '',
      removed: ['css nested deeper than 64 levels'],
    });
    expect(sanitiseCss(`${'@media screen{'.repeat(3000)}${'}'.repeat(3000)}`).css).to.equal('');
    expect(sanitiseCss('a { width: calc((1px + 2px) * 2) }').css).to.match(/calc/);
  });
});

import { expect } from 'chai';
import type { ImportProfile, ImportSample } from '../../plugins/importers/public.js';
import { BareAmpersandRepair } from '../../plugins/import-wxr/bare-ampersands.js';
import { detectWxr } from '../../plugins/import-wxr/detect-wxr.js';
import { phpUnserialize } from '../../plugins/import-wxr/php-unserialize.js';
import { elementKey, postTypeEntity, wxrNamespaceVersion } from '../../plugins/import-wxr/wxr-names.js';

const xmlSample = (
  xml: Partial<NonNullable<ImportProfile['xml']>>,
  filename = 'export.xml',
  kind: ImportProfile['kind'] = 'xml',
): ImportSample => ({
  filename,
  size: 1,
  head: Buffer.alloc(0),
  profile: {
    container: 'plain',
    encoding: 'utf-8',
    bom: false,
    kind,
    xml: { root: 'rss', namespaces: {}, elements: [], doctype: false, wellFormed: true, ...xml },
  },
});

describe('import-wxr pieces', () => {
  describe('phpUnserialize (plain data only)', () => {
    it('decodes scalars, lists and maps, with UTF-8 byte lengths', () => {
      expect(phpUnserialize('s:5:"hello";')).to.equal('hello');
      expect(phpUnserialize('s:8:"¯\\_(ツ)";')).to.equal(undefined); // wrong byte length: kept by the caller
      expect(phpUnserialize(`s:${Buffer.byteLength('ツ')}:"ツ";`)).to.equal('ツ');
      expect(phpUnserialize('i:-42;')).to.equal(-42);
      expect(phpUnserialize('d:0.5;')).to.equal(0.5);
      expect(phpUnserialize('b:1;')).to.equal(true);
      expect(phpUnserialize('N;')).to.equal(null);
      expect(phpUnserialize('a:2:{i:0;s:1:"a";i:1;s:1:"b";}')).to.deep.equal(['a', 'b']);
      expect(phpUnserialize('a:2:{s:1:"x";i:1;i:5;a:0:{}}')).to.deep.equal({ x: 1, 5: [] });
    });

    it('never decodes objects, references or trailing garbage; a __proto__ key stays a plain key', () => {
      expect(phpUnserialize('O:8:"stdClass":0:{}')).to.equal(undefined);
      expect(phpUnserialize('a:1:{i:0;O:8:"stdClass":0:{}}')).to.equal(undefined);
      expect(phpUnserialize('a:1:{i:0;r:1;}')).to.equal(undefined);
      expect(phpUnserialize('s:1:"a";junk;')).to.equal(undefined);
      expect(phpUnserialize('plain text')).to.equal(undefined);
      const value = phpUnserialize('a:1:{s:9:"__proto__";s:1:"x";}') as Record<string, unknown>;
      expect(Object.getPrototypeOf(value)).to.equal(Object.prototype);
      expect(Object.keys(value)).to.deep.equal(['__proto__']);
      expect(({} as Record<string, unknown>).x).to.equal(undefined);
    });

    it('stops past the depth limit', () => {
      const deep = 'a:1:{i:0;'.repeat(20) + 'i:1;' + '}'.repeat(20);
      expect(phpUnserialize(deep, 16)).to.equal(undefined);
      expect(phpUnserialize(deep, 32)).to.be.an('array');
    });
  });

  describe('BareAmpersandRepair', () => {
    const run = (chunks: string[]) => {
      const lines: number[] = [];
      const repair = new BareAmpersandRepair((line) => lines.push(line));
      const out = chunks.map((c) => repair.push(c)).join('') + repair.end();
      return { out, lines };
    };

    it('escapes bare ampersands outside CDATA and comments, leaves references alone, reports lines', () => {
      const input = '<a>x=1&y=2 &amp; &#38; &#x26; &nbsp;</a>\n<b><![CDATA[a&b]]></b><!-- c&d --><c u="p?q&r"/>';
      const { out, lines } = run([input]);
      expect(out).to.equal('<a>x=1&amp;y=2 &amp; &#38; &#x26; &nbsp;</a>\n<b><![CDATA[a&b]]></b><!-- c&d --><c u="p?q&amp;r"/>');
      expect(lines).to.deep.equal([1, 2]);
    });

    it('gives the same result however the text is split into chunks', () => {
      const input = 'a&b <![CDATA[x&y]]> &amp;c\n<!-- & --> d&#x26;e &long-name-without-end <x/>';
      const whole = run([input]).out;
      for (let size = 1; size <= 12; size++) {
        const chunks: string[] = [];
        for (let i = 0; i < input.length; i += size) chunks.push(input.slice(i, i + size));
        expect(run(chunks).out, `chunks of ${size}`).to.equal(whole);
      }
      expect(whole).to.equal('a&amp;b <![CDATA[x&y]]> &amp;c\n<!-- & --> d&#x26;e &amp;long-name-without-end <x/>');
    });
  });

  describe('names', () => {
    it('recognises WXR namespaces by URI for every version, http and https', () => {
      expect(wxrNamespaceVersion('http://wordpress.org/export/1.0/')).to.equal('1.0');
      expect(wxrNamespaceVersion('https://wordpress.org/export/1.2/')).to.equal('1.2');
      expect(wxrNamespaceVersion('http://example.com/fake/')).to.equal(null);
      expect(elementKey('http://wordpress.org/export/1.1/', 'post_id')).to.equal('wp:post_id');
      expect(elementKey('http://wordpress.org/export/1.1/excerpt/', 'encoded')).to.equal('excerpt:encoded');
      expect(elementKey('http://malicious.example.com/hijack/', 'post_id')).to.equal(null);
      expect(elementKey('', 'item')).to.equal('item');
    });

    it('pluralises custom post types into their own entity, never onto a taxonomy entity', () => {
      expect(
        ['post', 'page', 'attachment', 'nav_menu_item', 'wp_navigation', 'story', 'box', 'category'].map(postTypeEntity),
      ).to.deep.equal(['posts', 'pages', 'attachments', 'nav_menu_items', 'wp_navigations', 'stories', 'boxes', 'category_items']);
    });
  });

  describe('detectWxr', () => {
    const WP = { wp: 'http://wordpress.org/export/1.2/' };
    it('rss with the WXR namespace: near certain; the extension only nudges', () => {
      const score = detectWxr(xmlSample({ namespaces: WP, elements: ['rss', 'channel', 'wp:wxr_version'] }));
      expect(score).to.be.at.least(0.95);
      expect(detectWxr(xmlSample({ namespaces: WP, elements: ['wp:author'] }, 'export.wxr'))).to.be.greaterThan(score);
      expect(detectWxr(xmlSample({ namespaces: { wp: 'https://wordpress.org/export/1.0/' } }, 'export.txt'))).to.be.at.least(0.85);
    });

    it('wp: elements without the namespace: lower; no WordPress at all, another root or not XML: 0', () => {
      const weak = detectWxr(xmlSample({ elements: ['rss', 'channel', 'wp:post_id'] }));
      expect(weak).to.be.greaterThan(0).and.lessThan(0.8);
      expect(detectWxr(xmlSample({ elements: ['rss', 'channel', 'item'] }, 'feed.wxr'))).to.equal(0);
      expect(detectWxr(xmlSample({ root: 'feed', namespaces: WP }))).to.equal(0);
      expect(detectWxr(xmlSample({ namespaces: WP }, 'x.xml', 'json'))).to.equal(0);
      expect(detectWxr(xmlSample({ namespaces: { wp: 'http://example.com/fake/' }, elements: [] }))).to.equal(0);
    });
  });
});

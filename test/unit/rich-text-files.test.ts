import { expect } from 'chai';
import { filesPath, filesUrl, richTextFilePaths, rewriteRichTextFiles } from '../../plugins/content-packages/rich-text-files.js';

describe('content packages: media referenced by rich text (/files/ URLs)', () => {
  it('finds the storage paths of img src and a href /files/ URLs, decoded, each once; ignores other URLs and traversal', () => {
    const html =
      '<p>x</p><img src="/files/default/2026/11/a%20b.png" alt="A &amp; B" /><a href="/files/default/2026/11/a%20b.png?v=1">f</a>' +
      '<img src="https://cdn.example.com/files/x.png"><img src="/files/../secret"><a href="/files/t/c&amp;d.pdf">d</a>';
    expect(richTextFilePaths(html)).to.deep.equal(['default/2026/11/a b.png', 't/c&d.pdf']);
    expect(richTextFilePaths(null)).to.deep.equal([]);
    expect(filesPath('/files/a/%2e%2e/b')).to.equal(null);
    expect(filesUrl('default/2026/a b.png')).to.equal('/files/default/2026/a%20b.png');
  });

  it('rewrites only the mapped URLs, leaving every other character of the HTML as it was', () => {
    const html = '<p>Caf\u00e9 &lt;b&gt;</p><img src="/files/old/p.png" alt="x" /><img src="/files/keep.png" alt="y" />';
    const out = rewriteRichTextFiles(html, (path) => (path === 'old/p.png' ? '/files/new/q&r.png' : null));
    expect(out).to.equal('<p>Caf\u00e9 &lt;b&gt;</p><img src="/files/new/q&amp;r.png" alt="x" /><img src="/files/keep.png" alt="y" />');
  });
});

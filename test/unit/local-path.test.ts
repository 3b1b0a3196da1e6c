import { expect } from 'chai';
import { isLocalPath, localPathOr } from '../../kernel/http/local-path.js';

/**
 * The one rule for returnTo and every redirect a request names (kernel/http/local-path.ts, bundled by
 * the admin UI's sign-in page too). The values are what the page reads from the query string, already
 * decoded once (URLSearchParams.get): /login?returnTo=/%5Cevil.example gives "/\evil.example".
 */
describe('local paths (returnTo)', function () {
  const leaving = [
    '/\\evil.example',
    '/\tevil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r\n/evil.example',
    '//evil.example',
    '///evil.example',
    '/\\/evil.example',
    '\\\\evil.example',
    'https://evil.example',
    'javascript:alert(1)',
    'evil.example',
    '',
    ' /admin/',
    // Decoded once more: a second decoding somewhere must not make them leave either.
    '/%5Cevil.example',
    '/%09/evil.example',
    '/%2F/evil.example',
    '/%2f%2fevil.example',
    '/\u2028/evil.example',
    '/admin/\u0000',
  ];
  for (const value of leaving) {
    it(`refuses ${JSON.stringify(value)}`, function () {
      expect(isLocalPath(value)).to.equal(false);
      expect(localPathOr(value, '/admin/')).to.equal('/admin/');
      // Whatever a caller does with a refused value, the fallback stays on the site.
      expect(new URL(localPathOr(value, '/admin/'), 'https://cms.example').origin).to.equal('https://cms.example');
    });
  }

  for (const value of ['/', '/admin/', '/admin/content/posts?search=hello%20world&page=2#top', '/api/graphql', '/100%', '/a b?q=x y']) {
    it(`keeps ${JSON.stringify(value)}`, function () {
      expect(isLocalPath(value)).to.equal(true);
      expect(localPathOr(value, '/admin/')).to.equal(value);
      expect(new URL(value, 'https://cms.example').origin).to.equal('https://cms.example');
    });
  }

  it('refuses what is not a string', function () {
    for (const value of [null, undefined, 42, ['/admin/'], { toString: () => '/admin/' }]) expect(isLocalPath(value)).to.equal(false);
  });
});

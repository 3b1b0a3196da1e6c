import { expect } from 'chai';
import { normalisePath } from '../../kernel/http/rate-limit.js';
import { matchesIfNoneMatch } from '../../kernel/http/etag.js';

describe('rate-limit key path', function () {
  it('folds case, trailing slashes, doubled slashes and the /api/v1 alias', function () {
    for (const p of [
      '/api/echo/items',
      '/API/Echo/Items',
      '/api/echo/items/',
      '/api/v1/echo/items',
      '/api//echo///items//',
      '/API/V1/echo/items/',
    ]) {
      expect(normalisePath(p), p).to.equal('/api/echo/items');
    }
    expect(normalisePath('/api/v1')).to.equal('/api');
    expect(normalisePath('/')).to.equal('/');
    expect(normalisePath('/api/v10/x')).to.equal('/api/v10/x');
  });
});

describe('If-None-Match', function () {
  it('compares weakly, accepts lists and *, refuses everything else', function () {
    expect(matchesIfNoneMatch('"abc"', '"abc"')).to.equal(true);
    expect(matchesIfNoneMatch('W/"abc"', '"abc"')).to.equal(true);
    expect(matchesIfNoneMatch('"x", "abc"', '"abc"')).to.equal(true);
    expect(matchesIfNoneMatch('*', '"abc"')).to.equal(true);
    expect(matchesIfNoneMatch('"abd"', '"abc"')).to.equal(false);
    expect(matchesIfNoneMatch('', '"abc"')).to.equal(false);
    expect(matchesIfNoneMatch('"abc"', '')).to.equal(false);
  });
});

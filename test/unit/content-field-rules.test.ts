import { expect } from 'chai';
import { measureOf, patternProblem } from '../../plugins/content/field-rules.js';

describe('content: field rules (field-rules.ts)', function () {
  it('says what min/max bound per type', function () {
    expect(measureOf({ type: 'number' })).to.equal('value');
    expect(measureOf({ type: 'text' })).to.equal('length');
    expect(measureOf({ type: 'email' })).to.equal('length');
    expect(measureOf({ type: 'url' })).to.equal('length');
    expect(measureOf({ type: 'select', multiple: true })).to.equal('items');
    for (const type of ['select', 'color', 'boolean', 'date', 'json', 'richtext', 'markdown', 'media', 'relation'])
      expect(measureOf({ type }), type).to.equal(undefined);
  });

  it('accepts ordinary patterns', function () {
    for (const p of ['^[A-Z][a-z]*$', '^(ab)+$', '^\\d{3}-\\d{4}$', '(a|b)?c+', '[(+*)]+', '\\(a+\\)+', 'x{2}', '^(?:a{1}){3}$', 'a{'])
      expect(patternProblem(p), p).to.equal(undefined);
  });

  it('refuses patterns that do not compile, are too long, or repeat a group holding an unbounded quantifier', function () {
    for (const p of ['([a-z', '*a', 'a'.repeat(501)]) expect(patternProblem(p), p).to.be.a('string');
    for (const p of ['(a+)+', '(a*)*b', '(?:\\w+\\s?)*$', '((ab)*c)+', '(x+){2,}', '(a{2,})+', '([a-z]+\\.)+com'])
      expect(patternProblem(p), p).to.match(/exponential/);
  });
});

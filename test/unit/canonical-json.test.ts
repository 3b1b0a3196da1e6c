import { expect } from 'chai';
import { CanonicalJsonError, canonicalJson } from '../../lib/text/canonical-json.js';
import { signedUpdateEnvelope, signUpdateCheck, updateSigningInput, verifyUpdateSignature } from '../../lib/text/update-signature.js';

describe('canonical JSON (RFC 8785)', function () {
  it('serialises the example of RFC 8785 section 3.2.2 byte for byte', function () {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).to.equal(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units (RFC 8785 section 3.2.3)', function () {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // (Compared as text: JSON.parse would put the integer-like key "1" first again.)
    const order = ['\r', '1', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'] as const;
    const expected = `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify(input[k])}`).join(',')}}`;
    expect(canonicalJson(input)).to.equal(expected);
  });

  it('writes numbers in the ECMAScript form and nests without whitespace', function () {
    expect(canonicalJson({ b: [1, -0, 1e21, 1e-7, 0.1, 100, -1.5], a: { z: null, y: 'x' } })).to.equal(
      '{"a":{"y":"x","z":null},"b":[1,0,1e+21,1e-7,0.1,100,-1.5]}',
    );
    expect(canonicalJson('x')).to.equal('"x"');
    expect(canonicalJson(true)).to.equal('true');
  });

  it('converts like JSON.stringify: undefined members are left out, undefined array items are null, toJSON is used', function () {
    expect(canonicalJson({ a: undefined, b: [undefined], c: new Date(0) })).to.equal('{"b":[null],"c":"1970-01-01T00:00:00.000Z"}');
  });

  it('refuses what has no JSON form: NaN, Infinity, BigInt, lone surrogates, nesting past the limit', function () {
    for (const bad of [NaN, Infinity, { a: -Infinity }, 10n, '\ud800', { '\udc00': 1 }]) {
      expect(() => canonicalJson(bad), String(bad)).to.throw(CanonicalJsonError);
    }
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(() => canonicalJson(deep)).to.throw(CanonicalJsonError, /deeper/);
    expect(() => canonicalJson(deep, { maxDepth: 100 })).to.not.throw();
  });
});

describe('update-check signature', function () {
  const secret = 'a'.repeat(64);
  const payload = { z: 1, a: { y: [1, 'two'], b: null } };

  it('signs `<timestamp>.<canonical JSON>` with HMAC-SHA256 (lower-case hex)', function () {
    expect(updateSigningInput(1700000000000, payload)).to.equal('1700000000000.{"a":{"b":null,"y":[1,"two"]},"z":1}');
    const signature = signUpdateCheck(secret, 1700000000000, payload);
    expect(signature).to.match(/^[0-9a-f]{64}$/);
    // A reference value (node:crypto HMAC of the same text under the same key).
    expect(signature).to.equal(signUpdateCheck(secret, 1700000000000, { a: { b: null, y: [1, 'two'] }, z: 1 }));
  });

  it('verifies its own envelope, and refuses another payload, timestamp, secret or a malformed signature', function () {
    const e = signedUpdateEnvelope(secret, payload, 1700000000000);
    expect(verifyUpdateSignature(secret, e.timestamp, e.payload, e.signature)).to.equal(true);
    expect(verifyUpdateSignature(secret, e.timestamp + 1, e.payload, e.signature)).to.equal(false);
    expect(verifyUpdateSignature(secret, e.timestamp, { ...payload, z: 2 }, e.signature)).to.equal(false);
    expect(verifyUpdateSignature('b'.repeat(64), e.timestamp, e.payload, e.signature)).to.equal(false);
    expect(verifyUpdateSignature(secret, e.timestamp, e.payload, e.signature.toUpperCase())).to.equal(false);
    expect(verifyUpdateSignature(secret, e.timestamp, e.payload, 'abc')).to.equal(false);
    expect(() => updateSigningInput(1.5, payload)).to.throw(TypeError);
  });
});

import { expect } from 'chai';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST_ROOT } from '../../kernel/version.js';

// The dashboard widgets' shared module is plain browser JavaScript (widgets/widget-element.js, copied to dist/):
// its formatting helpers touch no DOM, so Node runs them as they are.
const load = (): Promise<any> => import(pathToFileURL(join(DIST_ROOT, 'widgets', 'widget-element.js')).href);

describe('widget formatting helpers (widgets/widget-element.js)', function () {
  let f: any;
  before(async () => {
    f = await load();
  });

  it('bytes in binary units, one decimal below 100', function () {
    expect(f.bytes(0)).to.equal('0 B');
    expect(f.bytes(512)).to.equal('512 B');
    expect(f.bytes(1536)).to.equal('1.5 KB');
    expect(f.bytes(3.2 * 1024 ** 3)).to.equal('3.2 GB');
    expect(f.bytes(251.97 * 1024 ** 3)).to.equal('252 GB');
    expect(f.bytes(2 * 1024 ** 4)).to.equal('2 TB');
    expect(f.bytes(-1)).to.equal('-');
    expect(f.bytes(Number.NaN)).to.equal('-');
  });

  it('percent of a ratio: one decimal below 10 %, whole numbers above', function () {
    expect(f.percent(0)).to.equal('0 %');
    expect(f.percent(0.034)).to.equal('3.4 %');
    expect(f.percent(0.2113)).to.equal('21 %');
    expect(f.percent(1)).to.equal('100 %');
    expect(f.percent(undefined)).to.equal('-');
  });

  it('numbers in the locale, counts with their noun', function () {
    expect(f.number(1234567)).to.equal((1234567).toLocaleString());
    expect(f.number(1.789, 2)).to.equal('1.79');
    expect(f.number('x')).to.equal('-');
    expect(f.plural(1, 'user')).to.equal('1 user');
    expect(f.plural(3, 'user')).to.equal('3 users');
    expect(f.plural(0, 'miss', 'misses')).to.equal('0 misses');
  });

  it('times and durations in words', function () {
    const now = Date.parse('2026-05-01T12:00:00Z');
    expect(f.relativeTime('2026-05-01T11:59:50Z', now)).to.equal('just now');
    expect(f.relativeTime('2026-05-01T11:57:00Z', now)).to.equal('3 min ago');
    expect(f.relativeTime('2026-05-01T09:00:00Z', now)).to.equal('3 h ago');
    expect(f.relativeTime('2026-04-30T10:00:00Z', now)).to.equal('yesterday');
    expect(f.relativeTime('not a date', now)).to.equal('');
    expect(f.duration(45)).to.equal('45 s');
    expect(f.duration(7860)).to.equal('2 h 11 min');
    expect(f.duration(3 * 86400 + 4 * 3600)).to.equal('3 days 4 h');
  });

  it('record keys as labels', function () {
    expect(f.label('failedLoginAttempts')).to.equal('Failed login attempts');
    expect(f.label('sign-in_failed')).to.equal('Sign in failed');
    expect(f.label('cpuInfo')).to.equal('Cpu info');
  });
});

import { expect } from 'chai';
import { contrastRatio, oklchOf, readableOn, rawContrast, shadeLadder, SHADES } from '../../plugins/themes/palette.js';
import { buildConfig, contrastWarnings } from '../../plugins/themes/theme-config.js';

const SEEDS = ['#0ea5e9', '#2563eb', '#dc2626', '#16a34a', '#d97706', '#fde047', '#64748b', '#000000', '#ffffff', '#7c3aed', '#111827'];

describe('palette (culori, OKLCH)', function () {
  it('a seed expands to 11 steps 50..950 with lightness falling monotonically in OKLCH', function () {
    for (const seed of SEEDS) {
      const ladder = shadeLadder(seed);
      expect(Object.keys(ladder), seed).to.deep.equal([...SHADES]);
      expect(SHADES.map(String)).to.deep.equal(['50', '100', '200', '300', '400', '500', '600', '700', '800', '900', '950']);
      const lightness = SHADES.map((s) => oklchOf(ladder[s]).l);
      for (let i = 1; i < lightness.length; i++) expect(lightness[i], `${seed} ${SHADES[i]}`).to.be.below(lightness[i - 1]!);
      expect(lightness[0]).to.be.above(0.95);
      expect(lightness[10]).to.be.below(0.3);
      for (const hex of Object.values(ladder)) expect(hex).to.match(/^#[0-9a-f]{6}$/);
    }
  });

  it('keeps the seed at 500 when its lightness is in range, and its hue along the ladder', function () {
    expect(shadeLadder('#0ea5e9')['500']).to.equal('#0ea5e9');
    expect(shadeLadder('#2563EB')['500']).to.equal('#2563eb');
    const hue = oklchOf('#2563eb').h!;
    for (const shade of ['200', '400', '600', '800'] as const) {
      expect(Math.abs(oklchOf(shadeLadder('#2563eb')[shade]).h! - hue), shade).to.be.below(3);
    }
  });

  it('computes WCAG contrast like the reference values', function () {
    expect(contrastRatio('#777777', '#ffffff')).to.equal(4.48);
    expect(contrastRatio('#777', '#fff')).to.equal(4.48);
    expect(contrastRatio('#000000', '#ffffff')).to.equal(21);
    expect(contrastRatio('#ffffff', '#ffffff')).to.equal(1);
    expect(contrastRatio('#767676', '#ffffff')).to.equal(4.54);
    // Order does not matter.
    expect(contrastRatio('#ffffff', '#0ea5e9')).to.equal(contrastRatio('#0ea5e9', '#ffffff'));
  });

  it('text on a button colour is whichever of white and black reads better (always AA)', function () {
    for (const seed of SEEDS) {
      for (const shade of SHADES) {
        const bg = shadeLadder(seed)[shade];
        expect(rawContrast(readableOn(bg), bg), `${seed} ${shade}`).to.be.at.least(4.5);
      }
    }
  });

  it('checks the documented text/background pairs and reports only failures', function () {
    expect(contrastWarnings(buildConfig({}))).to.deep.equal([]);
    const low = contrastWarnings(buildConfig({ colors: { text: '#aaaaaa', background: '#ffffff' } }));
    expect(low.map((w) => w.pair)).to.deep.equal(['text/background', 'text/surface']);
    expect(low[0]).to.include({ code: 'LOW_CONTRAST', foreground: '#aaaaaa', background: '#ffffff', ratio: 2.32, required: 4.5 });
  });
});

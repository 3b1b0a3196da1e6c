import { expect } from 'chai';
import { loadAdminModule, type LocaleTimesRule } from '../helpers/admin-module.js';

// The admin UI's "out of date" rule (admin/src/pages/content/locale-times.ts; docs/features/localisation.md, "Admin UI"):
// a translation is out of date when the default locale's localized values changed after it, read from the entry
// answers' `_localeUpdatedAt` ({<code>: ISO time}). The module has no imports: it is compiled here and loaded as it is.
describe('admin UI: the out-of-date rule of translations', function () {
  let rule: LocaleTimesRule;
  before(async function () {
    rule = await loadAdminModule<LocaleTimesRule>('pages/content/locale-times.ts');
  });

  const answer = (times: Record<string, string>, locales = Object.keys(times)) => ({ _locales: locales, _localeUpdatedAt: times });

  it('marks a translation whose source changed after it, and not one written after its source', function () {
    const older = answer({ en: '2026-01-02T00:00:00.000Z', de: '2026-01-01T00:00:00.000Z' });
    expect(rule.entryOutOfDate(older, 'de', 'en')).to.equal(true);
    const newer = answer({ en: '2026-01-01T00:00:00.000Z', de: '2026-01-02T00:00:00.000Z' });
    expect(rule.entryOutOfDate(newer, 'de', 'en')).to.equal(false);
    // Written at the same time (a create in a locale): not out of date.
    expect(rule.entryOutOfDate(answer({ en: '2026-01-01T00:00:00.000Z', de: '2026-01-01T00:00:00.000Z' }), 'de', 'en')).to.equal(false);
  });

  it('claims nothing without both times, for the default itself, or for a locale without a version', function () {
    expect(rule.entryOutOfDate({ _locales: ['en', 'de'] }, 'de', 'en')).to.equal(false);
    expect(rule.entryOutOfDate(answer({ en: '2026-01-02T00:00:00.000Z' }, ['en', 'de']), 'de', 'en')).to.equal(false);
    expect(rule.entryOutOfDate(answer({ en: '2026-01-02T00:00:00.000Z', de: 'not a time' }), 'de', 'en')).to.equal(false);
    expect(rule.entryOutOfDate(answer({ en: '2026-01-02T00:00:00.000Z', de: '2026-01-01T00:00:00.000Z' }), 'en', 'en')).to.equal(false);
    // A time without a version in _locales (a reader's answer leaves unpublished versions out) is not a translation.
    expect(rule.entryOutOfDate(answer({ en: '2026-01-02T00:00:00.000Z', de: '2026-01-01T00:00:00.000Z' }, ['en']), 'de', 'en')).to.equal(
      false,
    );
    expect(rule.isOutOfDate(null, 1)).to.equal(false);
    expect(rule.isOutOfDate(2, 1)).to.equal(true);
    expect(rule.localeUpdatedAt({ _localeUpdatedAt: ['x'] }, 'en')).to.equal(null);
    expect(rule.localeUpdatedAt({ _localeUpdatedAt: { en: '2026-01-01T00:00:00.000Z' } }, 'en')).to.equal(
      Date.parse('2026-01-01T00:00:00.000Z'),
    );
  });
});

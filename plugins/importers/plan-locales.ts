/**
 * The languages of an import (issue 36): the source's language codes (ImportParseSummary.locales) mapped onto the
 * installation's locales. Per source code: `use` an existing locale (default: the locale of the same code), `create`
 * it (default for a code the installation lacks, when the caller may create locales: system:settings in the default
 * tenant), or `skip` (its records are not imported; the default when the caller may not create the locale). The
 * request's `locales` changes that: `{<source>: "<code>"}` maps onto an existing locale, `{<source>: {target?,
 * create: true}}` creates one (its code: target, else the source's), `{<source>: false}` skips. An unknown source
 * code, an unknown target without `create`, or a code that is not BCP 47 is 400 VALIDATION_ERROR. The run creates
 * the locales the plan says `create` before it writes (runner.ts), and never any other.
 */
import { ForbiddenError, ValidationError } from '../../kernel/sdk.js';
import { canonicalLocale } from '../content/public.js';
import type { ImportParseSummary } from './format-contract.js';

/** One source language in a preview body: an existing locale's code, false to skip it, or a locale to create. */
export type LocaleMapping = string | false | null | { target?: string; create?: boolean };

export interface PlannedLocale {
  /** The code as the source spells it (`en-US`, `es`, `pt-br`). */
  source: string;
  /** Records in this language, over every entity. */
  count: number;
  /** The entities with records in it. */
  entities: string[];
  action: 'use' | 'create' | 'skip';
  /** The installation locale its records go to (null when skipped). */
  target: string | null;
  /** This is the installation's default locale: its records write the entries themselves, not a locale's version. */
  isDefault: boolean;
  note?: string;
}

export interface InstallationLocales {
  codes: string[];
  defaultCode: string;
  /** The caller may create locales (system:settings in the default tenant). */
  mayCreate: boolean;
}

/** A source's code in canonical BCP 47 form (`pt_BR` and `pt-br` -> `pt-BR`), null when it is none. */
export function sourceCanonical(code: string): string | null {
  return canonicalLocale(code) ?? canonicalLocale(code.replace(/_/g, '-'));
}

/** The source languages of an upload: code -> records and entities. */
function sourceLanguages(summary: ImportParseSummary): Map<string, { count: number; entities: string[] }> {
  const out = new Map<string, { count: number; entities: string[] }>();
  for (const [entity, codes] of Object.entries(summary.locales ?? {}))
    for (const [code, n] of Object.entries(codes)) {
      const s = out.get(code) ?? out.set(code, { count: 0, entities: [] }).get(code)!;
      s.count += n;
      s.entities.push(entity);
    }
  return out;
}

/**
 * Checks a request's `locales` against the upload and the installation (400 naming `body.locales.<code>`; creating a
 * locale without the right to: 403).
 */
export function checkLocaleMappings(
  summary: ImportParseSummary,
  mappings: Record<string, LocaleMapping> | undefined,
  installed: InstallationLocales,
): void {
  const found = sourceLanguages(summary);
  for (const [source, m] of Object.entries(mappings ?? {})) {
    const path = `body.locales.${source}`;
    if (!found.has(source)) {
      const known = [...found.keys()].join(', ') || 'none';
      throw new ValidationError(`The upload has no records in the language '${source}' (its languages: ${known})`, [
        { path, message: 'not a language of the upload' },
      ]);
    }
    if (m === false || m === null) continue;
    const create = typeof m === 'object' && m.create === true;
    const raw = typeof m === 'string' ? m : (m.target ?? source);
    const code = create ? sourceCanonical(raw) : canonicalLocale(raw);
    if (!code) throw new ValidationError(`'${raw}' is not a BCP 47 language tag`, [{ path, message: 'not a BCP 47 language tag' }]);
    if (create) {
      if (!installed.codes.includes(code) && !installed.mayCreate)
        throw new ForbiddenError(
          "Creating a locale needs the permission 'system:settings' in the default tenant: map the language onto an existing locale instead",
        );
    } else if (!installed.codes.includes(code)) {
      throw new ValidationError(
        `There is no locale '${code}' (locales: ${installed.codes.join(', ')}): map '${source}' onto one of them, or ask for {create: true}`,
        [{ path, message: 'unknown locale' }],
      );
    }
  }
}

/** The plan's languages: each source code with its action and target (see the file's comment). */
export function planLocales(
  summary: ImportParseSummary,
  mappings: Record<string, LocaleMapping> | undefined,
  installed: InstallationLocales,
): PlannedLocale[] {
  const out: PlannedLocale[] = [];
  for (const [source, { count, entities }] of sourceLanguages(summary)) {
    const m = mappings?.[source];
    const base = { source, count, entities };
    const of = (action: PlannedLocale['action'], target: string | null, note?: string): PlannedLocale => ({
      ...base,
      action,
      target,
      isDefault: target !== null && target === installed.defaultCode,
      ...(note ? { note } : {}),
    });
    if (m === false || m === null) {
      out.push(of('skip', null, 'left out by the request'));
      continue;
    }
    if (m !== undefined) {
      const create = typeof m === 'object' && m.create === true;
      const raw = typeof m === 'string' ? m : (m.target ?? source);
      const code = (create ? sourceCanonical(raw) : canonicalLocale(raw))!;
      out.push(of(installed.codes.includes(code) ? 'use' : 'create', code));
      continue;
    }
    const code = sourceCanonical(source);
    if (!code) out.push(of('skip', null, `'${source}' is not a BCP 47 language tag: map it onto a locale`));
    else if (installed.codes.includes(code)) out.push(of('use', code));
    else if (installed.mayCreate) out.push(of('create', code, `the locale '${code}' does not exist yet: the import creates it`));
    else
      out.push(
        of(
          'skip',
          null,
          `there is no locale '${code}' and creating one needs system:settings in the default tenant: map it onto an existing locale, or ask an administrator to create it`,
        ),
      );
  }
  return out.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.source.localeCompare(b.source));
}

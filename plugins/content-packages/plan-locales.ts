/**
 * Entries' versions in other locales on import (issue 36). A package made since carries the source's default locale
 * (`manifest.locales.default`) and each entry's versions (`locales`: code -> {status, fields}). The import writes them
 * with the entry (its versions here are replaced by the package's: a package entry without `locales` has none; a
 * package made before carries no versions and leaves those here as they are). The plan is blocked, naming what to
 * do, when an entry's version is in a locale this installation does not have or holds a field that is not localized
 * here (its values would be lost), and when the package's collections
 * have localized fields but its default locale is not this installation's (its entries' own values would land under
 * another locale): never a silent loss.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { FieldDefinition } from '../content/public.js';
import type { PackageEntryLine } from './plan-types.js';
import { targetValues, type TargetValues } from './plan-values.js';

/** A version staged for apply: status and values in target form (media not yet here: {$media: <source id>}). */
export type StagedLocales = Record<string, { status: string; fields: Record<string, unknown> }>;

type Scope = Parameters<typeof targetValues>[3];

export class PlanLocales {
  private readonly missing = new Map<string, number>();
  /** `collection.field` -> versions whose values of it have no localized field here. */
  private readonly notLocalized = new Map<string, number>();

  private constructor(
    private readonly here: { default: string; codes: Set<string> },
    private readonly carried: boolean,
  ) {}

  static async open(sequelize: Sequelize, packageDefault: string | undefined): Promise<PlanLocales> {
    let rows: Array<{ code: string; is_default: unknown }> = [];
    try {
      rows = await sequelize.query('SELECT code, is_default FROM content_locales', { type: QueryTypes.SELECT });
    } catch {
      rows = [];
    }
    const def = rows.find((r) => Boolean(Number(r.is_default)) || r.is_default === true)?.code ?? 'en';
    return new PlanLocales({ default: def, codes: new Set(rows.map((r) => r.code)) }, packageDefault !== undefined);
  }

  /** The default-locale check (only when the package's collections have localized fields). */
  defaultProblem(packageDefault: string | undefined, localized: boolean): string | null {
    if (!localized || packageDefault === undefined || packageDefault === this.here.default) return null;
    return `The package's default locale is '${packageDefault}' but this installation's is '${this.here.default}': its entries' own values would be taken as '${this.here.default}'. Make '${packageDefault}' the default here first (PATCH /api/locales/${packageDefault} {"isDefault": true}), or export from an installation whose default is '${this.here.default}'`;
  }

  /**
   * The entry's versions in target form (undefined: the package carries none, leave those here), each locale counted
   * when it is missing here; their pending media join the entry's.
   */
  async stage(
    key: string,
    e: PackageEntryLine,
    fields: FieldDefinition[],
    scope: Scope,
    tv: TargetValues,
  ): Promise<StagedLocales | undefined> {
    if (!this.carried) return undefined;
    const out: StagedLocales = {};
    const versions = (e.locales ?? {}) as Record<string, { status: string; fields: Record<string, unknown> }>;
    for (const [code, v] of Object.entries(versions)) {
      if (!this.here.codes.has(code) || code === this.here.default) {
        this.missing.set(code, (this.missing.get(code) ?? 0) + 1);
        continue;
      }
      const own = fields.filter((f) => f.localized === true && Object.hasOwn(v.fields, f.name));
      for (const name of Object.keys(v.fields))
        if (!own.some((f) => f.name === name)) {
          const at = `${key.split('/')[0]}.${name}`;
          this.notLocalized.set(at, (this.notLocalized.get(at) ?? 0) + 1);
        }
      const values = await targetValues(`${key} (${code})`, own, v.fields, scope);
      tv.pending.push(...values.pending);
      out[code] = { status: v.status, fields: values.values };
    }
    return out;
  }

  /** One sentence per locale the package's versions need and this installation lacks, and per field not localized here. */
  problems(): string[] {
    const fields = [...this.notLocalized].map(
      ([at, n]) =>
        `Field '${at}' holds values per locale in ${n} versions of the package but is not a localized field here: they would be lost; make it localized (localized: true) first`,
    );
    const locales = [...this.missing].map(([code, n]) =>
      code === this.here.default
        ? `${n} entries of the package have a version in '${code}', this installation's default locale: the package's default is another`
        : `${n} entries of the package have a version in locale '${code}', which this installation does not have: create it first (POST /api/locales {"code": "${code}"})`,
    );
    return [...locales, ...fields];
  }
}

/**
 * The package entry's `localeUpdatedAt` staged for apply (epoch ms per locale; a time that does not parse is left out,
 * so that locale answers the import's time): the import keeps when each locale's values last changed.
 */
export function localeTimes(e: PackageEntryLine): { localeUpdatedAt?: Record<string, number> } {
  if (!e.localeUpdatedAt) return {};
  const out: Record<string, number> = {};
  for (const [code, text] of Object.entries(e.localeUpdatedAt)) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) out[code] = at;
  }
  return Object.keys(out).length ? { localeUpdatedAt: out } : {};
}

import type { Sequelize, Transaction } from 'sequelize';
import { z } from 'zod';
import {
  modelsOf,
  ConflictError,
  NotFoundError,
  ValidationError,
  type EventBus,
  type Followed,
  type Logger,
  type PluginBootContext,
} from '../../kernel/sdk.js';
import { LocaleRow } from './models/locale-row.js';
import { LOCALES_CHANGED } from './public.js';
import type { LocaleLifecycle } from './locale-lifecycle.js';
import type { DefaultLocaleMove } from './locale-default-move.js';

/** At most this many locales per installation (every list over them stays small: reads walk fallback chains). */
export const MAX_LOCALES = 100;
const CODE_MAX = 35;

/** A locale as the API answers it (API decisions, "Locales"). */
export interface LocaleDefinition {
  code: string;
  name: string;
  isDefault: boolean;
  fallback: string | null;
}

/**
 * The canonical form of a BCP 47 code (`pt-br` -> `pt-BR`, `EN` -> `en`), through Intl.getCanonicalLocales (the
 * runtime's own BCP 47 parser: no library of ours to keep up to date); null when it is not one.
 */
export function canonicalLocale(code: string): string | null {
  if (typeof code !== 'string' || code.length === 0 || code.length > CODE_MAX || !/^[A-Za-z0-9-]+$/.test(code)) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(code);
    return canonical && canonical.length <= CODE_MAX ? canonical : null;
  } catch {
    return null;
  }
}

/** The language's English name (`de` -> German, `pt-BR` -> Brazilian Portuguese), the name of a locale created without one. */
function displayName(code: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

const code = z.string().min(1).max(CODE_MAX).describe('A BCP 47 language tag (en, de, pt-BR); answered in its canonical form');
const name = z.string().trim().min(1).max(191);
/** POST /api/locales. */
export const localeInput = z.object({ code, name: name.optional(), fallback: code.nullable().optional() }).strict();
/** PATCH /api/locales/:code. */
export const localePatch = z
  .object({
    name: name.optional(),
    fallback: code.nullable().optional().describe('Another locale (null: none); a cycle is 400'),
    isDefault: z.literal(true).optional().describe('true makes this the default locale (the previous one stops being it)'),
  })
  .strict();
export type LocaleInput = z.output<typeof localeInput>;
export type LocalePatch = z.output<typeof localePatch>;

export class LocaleNotFoundError extends NotFoundError {
  constructor(code: string) {
    super(`Locale '${code}' not found`);
  }
}

const bad = (path: string, message: string) => new ValidationError(`Invalid locale: ${path}: ${message}`, [{ path, message }]);

/** 400 naming the first cycle in `locales` (each follows its fallback), or nothing. */
export function checkFallbacks(locales: ReadonlyArray<LocaleDefinition>): void {
  const byCode = new Map(locales.map((l) => [l.code, l]));
  for (const l of locales) {
    if (l.fallback === null) continue;
    if (!byCode.has(l.fallback)) throw bad('fallback', `'${l.fallback}' (fallback of '${l.code}') is not a locale`);
    if (l.isDefault) throw bad('fallback', `the default locale '${l.code}' has no fallback (every chain ends at it)`);
    const seen = new Set([l.code]);
    for (let at = byCode.get(l.fallback); at; at = at.fallback === null ? undefined : byCode.get(at.fallback)) {
      if (seen.has(at.code)) throw bad('fallback', `'${l.code}' -> ${[...seen, at.code].slice(1).join(' -> ')} is a cycle`);
      seen.add(at.code);
    }
  }
  if (locales.filter((l) => l.isDefault).length !== 1) throw bad('isDefault', 'exactly one locale is the default');
}

const fromRow = (r: LocaleRow): LocaleDefinition => ({
  code: r.code,
  name: r.name,
  isDefault: Boolean(r.is_default),
  fallback: r.fallback ?? null,
});
const byDefaultThenCode = (a: LocaleDefinition, b: LocaleDefinition) =>
  Number(b.isDefault) - Number(a.isDefault) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);

/**
 * Locales: rows of content_locales (configuration of the installation, shared by every tenant as collections and
 * components are), kept in memory on every instance and read again when any instance announces a change. One of
 * them is the default (its values are an entry's own); each may name a fallback, never in a cycle.
 */
export class LocalesService {
  private loaded: LocaleDefinition[] = [];
  private copy: Followed<LocaleDefinition[]> | null = null;
  private readonly rows: typeof LocaleRow;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly events: EventBus,
    /** Entries' values when a locale is deleted or the default changes (locale-lifecycle.ts). */
    private readonly lifecycle?: () => LocaleLifecycle | undefined,
    /** A change of the default, recorded so an interrupted one is continued (locale-default-move.ts). */
    private readonly move?: () => DefaultLocaleMove | undefined,
  ) {
    this.rows = modelsOf(sequelize.models, { LocaleRow }).LocaleRow;
  }

  private async read(): Promise<LocaleDefinition[]> {
    return (await this.rows.findAll()).map(fromRow).sort(byDefaultThenCode);
  }

  async follow(follow: PluginBootContext['follow']): Promise<void> {
    this.copy = follow({ name: 'locales', load: () => this.read(), on: [LOCALES_CHANGED], initial: this.loaded });
    if (!(await this.copy.ready())) await this.copy.read();
  }

  private async changed(code: string): Promise<void> {
    if (this.copy) await this.copy.read();
    else this.loaded = await this.read();
    await this.events.publish(LOCALES_CHANGED, { code });
  }

  /** Every locale, the default first, then by code. */
  list(): LocaleDefinition[] {
    return this.copy?.current() ?? this.loaded;
  }

  /** The locales read again now (another instance may have just changed them). */
  async fresh(): Promise<LocaleDefinition[]> {
    return this.copy ? this.copy.read() : (this.loaded = await this.read());
  }

  /** The default locale's code (`en` on a new installation). */
  defaultCode(): string {
    return this.list().find((l) => l.isDefault)?.code ?? 'en';
  }

  /** The locale of a code in any case (`pt-br`), or undefined. */
  find(code: string): LocaleDefinition | undefined {
    const canonical = canonicalLocale(code);
    return canonical === null ? undefined : this.list().find((l) => l.code === canonical);
  }

  async get(code: string): Promise<LocaleDefinition> {
    const found = this.find(code) ?? (await this.fresh(), this.find(code));
    if (!found) throw new LocaleNotFoundError(code);
    return found;
  }

  /** The code `?locale=` names (canonical), the default when absent; 400 VALIDATION_ERROR naming `locale` when unknown. */
  resolve(code: string | undefined): string {
    if (code === undefined || code === '') return this.defaultCode();
    const found = this.find(code);
    if (!found)
      throw new ValidationError(`Unknown locale '${code}'`, [
        { path: 'locale', message: `'${code}' is not a locale of this installation` },
      ]);
    return found.code;
  }

  /** Where a locale's missing values come from, in order: the locale, its fallbacks, then the default (each once). */
  chain(code: string): string[] {
    const byCode = new Map(this.list().map((l) => [l.code, l]));
    const out = [code];
    for (let at = byCode.get(code)?.fallback; at && !out.includes(at) && out.length <= MAX_LOCALES; at = byCode.get(at)?.fallback)
      out.push(at);
    const fallbackDefault = this.defaultCode();
    if (!out.includes(fallbackDefault)) out.push(fallbackDefault);
    return out;
  }

  /** A change to the whole list, checked (fallbacks exist, no cycle, one default) then written in one transaction. */
  private async write(next: LocaleDefinition[], code: string): Promise<void> {
    checkFallbacks(next);
    await this.sequelize.transaction((transaction) => this.writeRows(next, transaction));
    await this.changed(code);
  }

  /** The rows of the list `next` (those that differ from the list in memory), inside the caller's transaction. */
  private async writeRows(next: LocaleDefinition[], transaction: Transaction): Promise<void> {
    const now = Date.now();
    const before = new Map((await this.read()).map((l) => [l.code, l]));
    for (const [c] of before) if (!next.some((l) => l.code === c)) await this.rows.destroy({ where: { code: c }, transaction });
    for (const l of next) {
      const was = before.get(l.code);
      const row = { name: l.name, is_default: l.isDefault, fallback: l.fallback, updated_at: now };
      if (!was) await this.rows.create({ code: l.code, ...row, created_at: now }, { transaction });
      else if (JSON.stringify(was) !== JSON.stringify(l)) await this.rows.update(row, { where: { code: l.code }, transaction });
    }
  }

  /**
   * Makes `next` the list when its default is another locale than the current one: entries' values move so each stays
   * under its locale (locale-lifecycle.ts), recorded so an interrupted change is continued (locale-default-move.ts), and
   * the list is written in the move's last transaction. Answers the entries moved.
   */
  private async changeDefault(next: LocaleDefinition[], to: string): Promise<number> {
    checkFallbacks(next);
    const move = this.move?.();
    if (!move) {
      await this.write(next, to);
      return 0;
    }
    const change = { from: this.defaultCode(), to, before: this.list(), next };
    const moved = await move.run(change, (p, transaction) => this.writeRows(p.next, transaction));
    await this.changed(to);
    return moved;
  }

  /**
   * Continues a change of the default locale that was interrupted (on start: any; on a round: one that stopped
   * advancing for `staleMs`): see locale-default-move.ts.
   */
  async continueInterrupted(logger: Logger, staleMs = 0): Promise<void> {
    const move = this.move?.();
    const ended = await move?.continueInterrupted((p, transaction) => this.writeRows(p.next, transaction), logger, staleMs);
    if (ended) await this.changed(ended.to);
  }

  private target(code: string | null | undefined, path: string): string | null | undefined {
    if (code === null || code === undefined) return code;
    const found = this.find(code);
    if (!found) throw bad(path, `'${code}' is not a locale of this installation`);
    return found.code;
  }

  async create(input: LocaleInput): Promise<LocaleDefinition> {
    await this.move?.()?.assertNone();
    const current = await this.fresh();
    const canonical = canonicalLocale(input.code);
    if (canonical === null) throw bad('code', `'${input.code}' is not a BCP 47 language tag (en, de, pt-BR)`);
    if (current.some((l) => l.code === canonical)) throw new ConflictError(`Locale '${canonical}' already exists`);
    if (current.length >= MAX_LOCALES) throw new ConflictError(`An installation has at most ${MAX_LOCALES} locales`);
    const made: LocaleDefinition = {
      code: canonical,
      name: input.name ?? displayName(canonical),
      isDefault: current.length === 0,
      fallback: this.target(input.fallback, 'fallback') ?? null,
    };
    await this.write([...current, made], canonical);
    return this.get(canonical);
  }

  /**
   * A new name or fallback; `isDefault: true` makes it the default (and drops its fallback: the default has none),
   * moving entries' values so each stays under its locale (locale-lifecycle.ts); `report` hears what moved.
   */
  async update(code: string, patch: LocalePatch, report?: (moved: { entriesMoved: number }) => void): Promise<LocaleDefinition> {
    await this.move?.()?.assertNone();
    await this.fresh();
    const current = await this.get(code);
    const fallback = patch.fallback === undefined ? current.fallback : (this.target(patch.fallback, 'fallback') ?? null);
    if (fallback === current.code) throw bad('fallback', `'${current.code}' cannot fall back to itself`);
    const makeDefault = patch.isDefault === true && !current.isDefault;
    const next = this.list().map((l) => {
      if (l.code === current.code)
        return { ...l, name: patch.name ?? l.name, isDefault: l.isDefault || makeDefault, fallback: makeDefault ? null : fallback };
      return makeDefault ? { ...l, isDefault: false } : l;
    });
    if (makeDefault) report?.({ entriesMoved: await this.changeDefault(next, current.code) });
    else await this.write(next, current.code);
    return this.get(current.code);
  }

  /**
   * Deletes a locale and its entries' versions (locale-lifecycle.ts; answers how many); 409 CONFLICT for the default
   * and for one another locale falls back to (naming them).
   */
  async remove(code: string): Promise<number> {
    await this.move?.()?.assertNone();
    await this.fresh();
    const current = await this.get(code);
    if (current.isDefault) throw new ConflictError(`Locale '${current.code}' is the default locale: make another the default first`);
    const users = this.list().filter((l) => l.fallback === current.code);
    if (users.length)
      throw new ConflictError(
        `Locale '${current.code}' is the fallback of ${users.map((l) => `'${l.code}'`).join(', ')}: change their fallback first`,
      );
    const lifecycle = this.lifecycle?.();
    // Versions first (the locale can still be deleted again if this fails), then once more after: none written in between is left.
    let versions = lifecycle ? await lifecycle.dropVersions(current.code) : 0;
    await this.write(
      this.list().filter((l) => l.code !== current.code),
      current.code,
    );
    if (lifecycle) versions += await lifecycle.dropVersions(current.code);
    return versions;
  }

  /**
   * The whole list replaced (a backup restore, configuration promotion): checked as every change is (400 for a
   * cycle, a missing fallback or not exactly one default); answers the list it replaced (the undo).
   */
  async replaceAll(locales: ReadonlyArray<LocaleDefinition>): Promise<LocaleDefinition[]> {
    await this.move?.()?.assertNone();
    const before = await this.fresh();
    if (locales.length > MAX_LOCALES) throw bad('locales', `at most ${MAX_LOCALES} locales`);
    const next = locales.map((l) => {
      const canonical = canonicalLocale(l.code);
      if (canonical === null) throw bad('code', `'${l.code}' is not a BCP 47 language tag`);
      return { code: canonical, name: l.name || displayName(canonical), isDefault: Boolean(l.isDefault), fallback: l.fallback ?? null };
    });
    // Another default: entries' values move as for PATCH {isDefault: true} (a restore then puts back its own rows).
    const to = next.find((l) => l.isDefault)?.code ?? '';
    if (to && to !== this.defaultCode() && next.filter((l) => l.isDefault).length === 1) await this.changeDefault(next, to);
    else await this.write(next, to);
    return before;
  }
}

import { randomBytes } from 'node:crypto';
import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { LoadedCollection } from './collections-service.js';
import { slugify, type CheckedInput } from './entry-input.js';
import { UniqueValueConflictError } from './entry-errors.js';
import { SingletonTakenError } from './errors.js';
import { columnName } from './field-types.js';

const MAX_SLUG_TRIES = 3;
/** Highest numeric slug suffix handed out per collection, tenant and base (a hint, checked by the insert). */
const SUFFIX_HINTS_MAX = 1000;

/** The slug base of a new entry: its own slug, else its title or name, else its first text field, else its id. */
export function slugBase(c: LoadedCollection, input: CheckedInput, id: string): string {
  const source =
    input.slug ??
    ['title', 'name'].map((k) => input.values[k]).find((v) => typeof v === 'string') ??
    c.fields
      .filter((f) => f.type === 'text')
      .map((f) => input.values[f.name])
      .find((v) => typeof v === 'string');
  return slugify(typeof source === 'string' ? source : '') || id.slice(0, 8);
}

/**
 * The field a unique violation is about: 'slug', a field name, or null. Read from the index name
 * (MariaDB: "for key 'ix_…_f_email'") or the column list (SQLite: "failed: cms_c_x.tenant_id,
 * cms_c_x.f_email"), never from the rest of the message, which carries the values and the SQL.
 */
function violated(c: LoadedCollection, err: UniqueConstraintError): string | null {
  const message = String((err.parent as Error | undefined)?.message ?? '').split('\n')[0]!;
  const names = [
    ...Object.keys(err.fields ?? {}),
    ...(/for key '(?:[^'.]+\.)?([^']+)'/.exec(message)?.slice(1) ?? []),
    ...(/UNIQUE constraint failed: (.+)$/
      .exec(message)?.[1]
      ?.split(',')
      .map((s) => s.trim().split('.').pop()!) ?? []),
  ];
  const prefix = `ix_${c.uid.slice(0, 8)}_`;
  const columns = names.map((n) => (n.startsWith(prefix) ? n.slice(prefix.length) : n));
  if (columns.includes('slug')) return 'slug';
  return c.fields.find((f) => columns.includes(columnName(f)))?.name ?? null;
}

/**
 * Unique slugs per collection and tenant, deduplicated with -2, -3, ...: for one write (tried until its
 * slug is free) and for a batch (free slugs picked before one multi-row insert). The highest suffix in
 * use per base is kept as a bounded hint, so repeated bases do not each cost an aggregate query.
 */
export class EntrySlugs {
  private readonly suffixHints = new Map<string, number>();

  constructor(private readonly sequelize: Sequelize) {}

  /**
   * The highest numeric suffix in use for a slug base (`base-<n>`), from a bounded in-memory hint or one
   * aggregate query. A hint that is stale only costs a unique violation, which the callers handle.
   */
  private hintKey(c: LoadedCollection, tenantId: string, base: string): string {
    return `${c.uid}:${tenantId}:${base}`;
  }

  /** Whether an entry of the tenant has the slug (the unique index of tenant and slug). */
  private async taken(c: LoadedCollection, tenantId: string, slug: string, transaction?: Transaction): Promise<boolean> {
    const table = this.sequelize.getQueryInterface().quoteIdentifier(c.table);
    const rows = await this.sequelize.query(`SELECT 1 AS taken FROM ${table} WHERE tenant_id = ? AND slug = ? LIMIT 1`, {
      replacements: [tenantId, slug],
      type: QueryTypes.SELECT,
      transaction,
      // No column types to read first (Sequelize's SQLite SELECT reads them for the tables named here).
      ...({ tableNames: [] } as object),
    });
    return rows.length > 0;
  }

  private async highestSuffix(c: LoadedCollection, tenantId: string, base: string, transaction?: Transaction): Promise<number> {
    const key = this.hintKey(c, tenantId, base);
    const hint = this.suffixHints.get(key);
    if (hint !== undefined) return hint;
    const table = this.sequelize.getQueryInterface().quoteIdentifier(c.table);
    const cast = this.sequelize.getDialect() === 'sqlite' ? 'INTEGER' : 'UNSIGNED';
    const [row] = await this.sequelize.query<{ n: number | string | null }>(
      `SELECT MAX(CAST(SUBSTR(slug, ${base.length + 2}) AS ${cast})) AS n FROM ${table} WHERE tenant_id = ? AND slug > ? AND slug < ?`,
      { replacements: [tenantId, `${base}-`, `${base}.`], type: 'SELECT' as never, transaction },
    );
    return Math.max(1, Number(row?.n ?? 0) || 0);
  }

  private noteSuffix(c: LoadedCollection, tenantId: string, base: string, n: number): void {
    const key = this.hintKey(c, tenantId, base);
    this.suffixHints.delete(key);
    this.suffixHints.set(key, n);
    if (this.suffixHints.size > SUFFIX_HINTS_MAX) this.suffixHints.delete(this.suffixHints.keys().next().value!);
  }

  /** Keeps the suffixes a batch handed out (see assignBatch), once its rows went in. */
  noteSuffixes(c: LoadedCollection, tenantId: string, suffixes: ReadonlyMap<string, number>): void {
    for (const [base, n] of suffixes) this.noteSuffix(c, tenantId, base, n);
  }

  /**
   * Runs a write with a free slug: the base first, then `base-<n>` after the highest numbered one in use,
   * then a random suffix; a unique violation on another field is a 409 naming it.
   */
  async write(
    c: LoadedCollection,
    tenantId: string,
    base: string,
    write: (slug: string) => Promise<void>,
    prefix: string,
    transaction?: Transaction,
  ): Promise<void> {
    let next = 0;
    // The base was taken when last tried here (a suffix hint): a look at the unique index says whether it still is,
    // instead of an INSERT refused (a model built, an error made and its stack formatted); the same slug results.
    const taken = this.suffixHints.has(this.hintKey(c, tenantId, base)) && (await this.taken(c, tenantId, base, transaction));
    for (let n = taken ? 2 : 1; ; n++) {
      let slug = base;
      if (n > 1 && n <= MAX_SLUG_TRIES) {
        next = (next || (await this.highestSuffix(c, tenantId, base, transaction))) + 1;
        slug = `${base}-${next}`;
      } else if (n > MAX_SLUG_TRIES) slug = `${base}-${randomBytes(4).toString('hex')}`;
      try {
        await write(slug);
        if (n > 1 && n <= MAX_SLUG_TRIES) this.noteSuffix(c, tenantId, base, next);
        return;
      } catch (err) {
        if (!(err instanceof UniqueConstraintError)) throw err;
        const field = violated(c, err);
        if (field === 'slug' && n <= MAX_SLUG_TRIES + 3) continue;
        // A singleton's unique tenant_id (its one entry): the only other unique index without a field.
        if (field === null && c.singleton) throw new SingletonTakenError(c.name);
        const path = field ? `${prefix}.${field}` : prefix;
        throw new UniqueValueConflictError(c.name, field, path);
      }
    }
  }

  /**
   * Free slugs for a whole batch, given the slugs of `rows` already taken: a base once, repeats and taken
   * ones as base-<n> after the highest in use (rows are changed in place). Returns the suffixes handed
   * out per base, for noteSuffixes once the rows went in.
   */
  async assignBatch(
    c: LoadedCollection,
    tenantId: string,
    rows: Array<{ slug: string }>,
    taken: Set<string>,
    transaction: Transaction,
  ): Promise<Map<string, number>> {
    const suffixes = new Map<string, number>();
    for (const row of rows) {
      if (!taken.has(row.slug)) {
        taken.add(row.slug);
        continue;
      }
      const base = row.slug;
      const n = (suffixes.get(base) ?? (await this.highestSuffix(c, tenantId, base, transaction))) + 1;
      suffixes.set(base, n);
      row.slug = `${base}-${n}`;
    }
    return suffixes;
  }
}

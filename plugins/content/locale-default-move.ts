/**
 * A change of the default locale, crash-safe (issue 36). Entries' values move in batches (locale-lifecycle.ts,
 * moveBatch: BATCH entries per transaction, which awaits nothing but the database), so the move cannot be one
 * transaction; its progress is recorded instead, in content_locale_moves (one row: the change and how far it got):
 *
 * - The row is written first (from, to, the locale list before, which the values are read with, and the list to
 *   write at the end); while it exists every other locale change is 409 CONFLICT.
 * - Each batch advances the row in its own transaction (`step` from n to n + 1, with the collection and last entry id
 *   moved): the row and the batch commit together or not at all, so the row always says exactly which entries moved.
 *   The advance is conditional on `step`: two instances continuing one change never move a batch twice (the one whose
 *   advance finds another step stops and leaves the change to the other).
 * - The last transaction deletes the row (again conditional on `step`) and writes the new locale list.
 *
 * A change interrupted (the process killed, the database gone, a batch failing) keeps its row: the content plugin
 * continues it when it starts (`continueInterrupted`), and every instance looks for one that stopped advancing
 * (nothing for STALE_MS) on a round (`index.ts`). It goes on from the row's collection and entry, with the list
 * recorded before, so reads then answer what they answered before the change, as an uninterrupted change leaves them.
 */
import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError, rowsChanged, type Logger } from '../../kernel/sdk.js';
import type { CollectionsService } from './collections-service.js';
import { localizedFields } from './entry-locales.js';
import { BATCH, chainOf, type LocaleLifecycle } from './locale-lifecycle.js';
import type { LocaleDefinition } from './locales-service.js';

const TABLE = 'content_locale_moves';
const ID = 'default';
/** A change whose row has not advanced for this long is taken to have stopped (its instance gone) and is continued. */
export const STALE_MS = 60_000;

/** A change of the default: from, to, the list before it (values are read with its fallbacks) and the list written at the end. */
export interface DefaultChange {
  from: string;
  to: string;
  before: LocaleDefinition[];
  next: LocaleDefinition[];
}

interface Progress extends DefaultChange {
  collection: string | null;
  afterId: string | null;
  step: number;
  moved: number;
  updatedAt: number;
}

type Row = {
  from_code: string;
  to_code: string;
  before_list: string;
  next_list: string;
  collection: string | null;
  after_id: string | null;
  step: unknown;
  moved: unknown;
  updated_at: unknown;
};

export class LocaleChangeInProgressError extends ConflictError {
  constructor(p: { from: string; to: string; moved: number }) {
    super(
      `The default locale is being changed from '${p.from}' to '${p.to}' (${p.moved} entries moved so far): change locales again when it is done`,
    );
  }
}

export class DefaultLocaleMove {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly lifecycle: LocaleLifecycle,
    private readonly collections: () => CollectionsService,
    private readonly invalidate: (tenantId: string, collection: string) => Promise<void>,
  ) {}

  /** The change in progress (its row), or null. */
  async current(transaction?: Transaction): Promise<Progress | null> {
    const [r] = await this.sequelize.query<Row>(`SELECT * FROM ${TABLE} WHERE id = :id`, {
      replacements: { id: ID },
      type: QueryTypes.SELECT,
      transaction,
    });
    if (!r) return null;
    return {
      from: r.from_code,
      to: r.to_code,
      before: JSON.parse(r.before_list) as LocaleDefinition[],
      next: JSON.parse(r.next_list) as LocaleDefinition[],
      collection: r.collection ?? null,
      afterId: r.after_id ?? null,
      step: Number(r.step),
      moved: Number(r.moved),
      updatedAt: Number(r.updated_at),
    };
  }

  /** 409 CONFLICT while a change of the default is in progress (every other locale change waits for it). */
  async assertNone(): Promise<void> {
    const p = await this.current();
    if (p) throw new LocaleChangeInProgressError(p);
  }

  /**
   * Records the change (409 when one is in progress), moves every entry's values and, in the last transaction, runs
   * `finish` (the locale list written); answers the entries moved. When another instance takes the change over (see
   * proceed) this one waits for it to end.
   */
  async run(change: DefaultChange, finish: (p: DefaultChange, transaction: Transaction) => Promise<void>): Promise<number> {
    const now = Date.now();
    await this.sequelize.transaction(async (transaction) => {
      const found = await this.current(transaction);
      if (found) throw new LocaleChangeInProgressError(found);
      await this.sequelize.query(
        `INSERT INTO ${TABLE} (id, from_code, to_code, before_list, next_list, collection, after_id, step, moved, started_at, updated_at) VALUES (:id, :from, :to, :before, :next, NULL, NULL, 0, 0, :now, :now)`,
        {
          replacements: {
            id: ID,
            from: change.from,
            to: change.to,
            before: JSON.stringify(change.before),
            next: JSON.stringify(change.next),
            now,
          },
          transaction,
        },
      );
    });
    let moved = await this.proceed(finish);
    let last = 0;
    while (moved === null) {
      const p = await this.current();
      if (!p) return last;
      last = p.moved;
      if (Date.now() - p.updatedAt >= STALE_MS) moved = await this.proceed(finish);
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return moved;
  }

  /**
   * Continues the recorded change from where its row says it got, to the end: answers the entries moved in all, or
   * null when there is none or another instance advanced it meanwhile (that one goes on).
   */
  async proceed(finish: (p: DefaultChange, transaction: Transaction) => Promise<void>): Promise<number | null> {
    const p = await this.current();
    if (!p) return null;
    const chain = chainOf(p.before, p.to);
    const names = this.collections()
      .list()
      .filter((c) => localizedFields(c).length > 0)
      .map((c) => c.name)
      .sort();
    for (const name of names) {
      if (p.collection !== null && name < p.collection) continue;
      const c = this.collections().find(name);
      if (!c) continue;
      const tenants = new Set<string>();
      let after = name === p.collection ? p.afterId : null;
      for (;;) {
        const page = (await c.model.findAll({
          attributes: ['id'],
          where: after === null ? {} : { id: { [Op.gt]: after } },
          order: [['id', 'ASC']],
          limit: BATCH,
          raw: true,
        })) as unknown as Array<{ id: string }>;
        if (!page.length) break;
        const last = page[page.length - 1]!.id;
        const ids = page.map((r) => r.id);
        const advanced = await this.sequelize.transaction(async (transaction) => {
          if (!(await this.advance(p, { collection: name, afterId: last, moved: ids.length }, transaction))) return false;
          await this.lifecycle.moveBatch(c, ids, { from: p.from, to: p.to, chain, tenants }, transaction);
          return true;
        });
        if (!advanced) return null;
        Object.assign(p, { step: p.step + 1, collection: name, afterId: last, moved: p.moved + ids.length });
        after = last;
        if (page.length < BATCH) break;
      }
      for (const t of tenants) await this.invalidate(t, name).catch(() => undefined);
    }
    const ended = await this.sequelize.transaction(async (transaction) => {
      const [, meta] = await this.sequelize.query(`DELETE FROM ${TABLE} WHERE id = :id AND step = :step`, {
        replacements: { id: ID, step: p.step },
        type: QueryTypes.UPDATE, // (the rows changed come back as an UPDATE's: rowsChanged)
        transaction,
      });
      if (rowsChanged(meta) !== 1) return false;
      await finish(p, transaction);
      return true;
    });
    return ended ? p.moved : null;
  }

  /** Moves the row from `p.step` to the next step (inside the batch's transaction); false when it is at another step. */
  private async advance(
    p: Progress,
    to: { collection: string; afterId: string; moved: number },
    transaction: Transaction,
  ): Promise<boolean> {
    const [, meta] = await this.sequelize.query(
      `UPDATE ${TABLE} SET step = :next, collection = :collection, after_id = :afterId, moved = moved + :moved, updated_at = :now WHERE id = :id AND step = :step`,
      { replacements: { ...to, id: ID, step: p.step, next: p.step + 1, now: Date.now() }, type: QueryTypes.UPDATE, transaction },
    );
    return rowsChanged(meta) === 1;
  }

  /**
   * Continues a change left unfinished (on start: any; on a round: one that has not advanced for `staleMs`), logged;
   * answers it when this call ended it. A failure is logged and left for the next round.
   */
  async continueInterrupted(
    finish: (p: DefaultChange, transaction: Transaction) => Promise<void>,
    logger: Logger,
    staleMs = 0,
  ): Promise<DefaultChange | null> {
    try {
      const p = await this.current();
      if (!p || Date.now() - p.updatedAt < staleMs) return null;
      logger.warn({ from: p.from, to: p.to, moved: p.moved }, 'continuing an interrupted change of the default locale');
      const moved = await this.proceed(finish);
      if (moved === null) return null;
      logger.info({ from: p.from, to: p.to, entriesMoved: moved }, 'default locale changed (an interrupted change, continued)');
      return p;
    } catch (err) {
      logger.error({ err }, 'an interrupted change of the default locale could not be continued (tried again on the next round)');
      return null;
    }
  }
}

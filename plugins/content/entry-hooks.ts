import type { Transaction, WhereOptions } from 'sequelize';
import { ValidationError, type Identity } from '../../kernel/sdk.js';
import type { Entry } from './entry-shape.js';

/** What a publish guard is asked: an entry of a collection is about to become published (`entryId` null: a new entry). */
export interface PublishCheck {
  tenantId: string;
  collection: string;
  entryId: string | null;
  /** The writing transaction (read through it: on SQLite a read beside it would wait for it). */
  transaction?: Transaction;
}

/** Throws (an HTTP error) to refuse the publish: the write is rolled back and the error answered. */
export type PublishGuard = (check: PublishCheck) => Promise<void>;

/**
 * Adds keys to entries as reads and writes answer them (e.g. `_stage`), in place. Called once per answer with every
 * entry of it (a list page: one call) and the caller it answers, before a list is cached: a decorator whose values
 * change must invalidate the collection's lists (EntriesService.invalidateLists). Cached lists are shared by callers
 * who may write the collection alike (hasScopedPermission content:write): a decorator may tell callers apart by that,
 * not by more.
 */
export type EntryDecorator = (collection: string, identity: Identity, entries: Entry[]) => Promise<void>;

/**
 * A list's `?stage=` as a condition on the collection's rows (review stages); throws an HTTP error (400) for a stage the
 * collection does not have. The condition's values are the filter's to escape.
 */
export type StageFilter = (collection: string, tenantId: string, stage: string) => Promise<WhereOptions>;

/**
 * The content plugin's hooks for other plugins (reached as `entries.hooks`): publish guards, asked before an entry
 * becomes published on every write path (create, batch create, update and status, scheduled publishing, imports), and
 * answer decorators. Each `add` returns its removal (for the adding plugin's close).
 */
export class EntryHooks {
  private readonly guards: PublishGuard[] = [];
  private readonly decorators: EntryDecorator[] = [];
  private stageFilter: StageFilter | null = null;

  addPublishGuard(guard: PublishGuard): () => void {
    this.guards.push(guard);
    return () => void this.guards.splice(this.guards.indexOf(guard) >>> 0, 1);
  }

  addDecorator(decorator: EntryDecorator): () => void {
    this.decorators.push(decorator);
    return () => void this.decorators.splice(this.decorators.indexOf(decorator) >>> 0, 1);
  }

  /** The one stage filter (the review stages plugin's). */
  setStageFilter(filter: StageFilter): () => void {
    this.stageFilter = filter;
    return () => {
      if (this.stageFilter === filter) this.stageFilter = null;
    };
  }

  /** The condition of a list's `?stage=`; without a stage filter (no review stages) 400 VALIDATION_ERROR. */
  stageWhere(collection: string, tenantId: string, stage: string): Promise<WhereOptions> {
    if (!this.stageFilter)
      throw new ValidationError('No review stages here: a list cannot be filtered by stage', [
        { path: 'query.stage', message: 'no review stages' },
      ]);
    return this.stageFilter(collection, tenantId, stage);
  }

  /** Asks every guard; the first refusal is thrown. */
  async beforePublish(check: PublishCheck): Promise<void> {
    for (const guard of this.guards) await guard(check);
  }

  /** Runs every decorator over the entries (nothing when there are none). */
  async decorate(collection: string, identity: Identity, entries: Entry[]): Promise<void> {
    if (!entries.length) return;
    for (const decorator of this.decorators) await decorator(collection, identity, entries);
  }
}

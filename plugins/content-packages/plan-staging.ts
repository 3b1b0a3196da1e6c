/**
 * Staging step of an import plan (pass 2): reads the package's values again, decides per entry (create,
 * update, copy, skip, conflict, delete in mirror) and writes the decisions to staging files
 * (import-staging.ts); the plan carries one small operation per collection, action and chunk.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { DataOperation } from '../data-ops/public.js';
import type { MediaPlan } from './import-media.js';
import { StagingWriter, type ImportPayload, type StagedMedia } from './import-staging.js';
import { formHash, type TargetRow } from './import-target.js';
import type { MatchDecision } from './matching.js';
import { readNdjson } from './package-reader.js';
import { conflictDetail } from './plan-conflicts.js';
import { syncIdOf, type PlanIdentities } from './plan-identities.js';
import type { PlanSchemas } from './plan-schemas.js';
import { entrySchema, type PackageEntryLine, type PlanScope } from './plan-types.js';
import { targetValues, type RefResolver, type TargetValues } from './plan-values.js';
import { localeTimes, PlanLocales, type StagedLocales } from './plan-locales.js';

type Collection = PlanScope['m']['collections'][number];

/** One package entry being staged: its key, line, decision and values in target form. */
interface Staged {
  c: Collection;
  key: string;
  e: PackageEntryLine;
  tv: TargetValues;
  locales: StagedLocales | undefined;
}

export class ImportStager {
  private readonly staging: StagingWriter;
  /** Slugs taken per collection (the target's, minus those mirror deletes, plus those given by this plan). */
  private readonly slugs = new Map<string, Set<string>>();
  private readonly skipped = new Map<string, number>();
  private readonly pendingMedia = new Set<string>();
  private addNoUpdate = 0;

  constructor(
    private readonly s: PlanScope,
    private readonly p: PlanSchemas,
    private readonly ids: PlanIdentities,
    private readonly media: MediaPlan,
    private readonly refs: RefResolver,
  ) {
    this.staging = new StagingWriter(s.dir);
  }

  /** Opens the staging files and, in mirror, stages the deletes: the target's entries no package entry matched. */
  async open(): Promise<void> {
    await this.staging.open();
    const claimed = new Map<string, Set<string>>();
    for (const it of this.ids.incoming) {
      const dcs = this.ids.decisions.get(it.key)!;
      if (dcs.kind === 'matched') {
        let set = claimed.get(it.collection);
        if (!set) claimed.set(it.collection, (set = new Set()));
        set.add(dcs.targetId);
      }
    }
    for (const [name, index] of this.ids.indexes) {
      const taken = new Set(index.bySlug.keys());
      if (this.s.mode === 'mirror') {
        const keep = claimed.get(name) ?? new Set<string>();
        for (const row of index.rows.values())
          if (!keep.has(row.id)) {
            await this.staging.add(name, 'delete', { id: row.id, syncId: row.syncId });
            taken.delete(row.slug);
          }
      }
      this.slugs.set(name, taken);
    }
  }

  private freeSlug(collection: string, wanted: string, from = 1): string {
    let taken = this.slugs.get(collection);
    if (!taken) this.slugs.set(collection, (taken = new Set()));
    let slug = wanted;
    for (let n = from; taken.has(slug); n++)
      slug = n > 10_000 ? `${wanted.slice(0, 170)}-${randomUUID().slice(0, 8)}` : `${wanted.slice(0, 180)}-${n + 1}`;
    taken.add(slug);
    return slug;
  }

  private skip(collection: string): void {
    this.skipped.set(collection, (this.skipped.get(collection) ?? 0) + 1);
  }

  /** Pass 2: values, decisions, staging. */
  async stageAll(): Promise<void> {
    const packageDefault = (this.s.m as { locales?: { default?: string } }).locales?.default;
    const locales = await PlanLocales.open(this.s.d.sequelize, packageDefault);
    const localized = this.s.m.collections.some((c) => this.p.commonFields(c.name).some((f) => f.localized === true));
    const wrongDefault = locales.defaultProblem(packageDefault, localized);
    if (wrongDefault) this.s.notes.block(wrongDefault);
    for (const c of this.s.m.collections) {
      const fields = this.p.commonFields(c.name);
      // Only matched entries compare with a base (the last version both sides agreed on).
      const matched = this.ids.incoming.filter((x) => x.collection === c.name && this.ids.decisions.get(x.key)!.kind === 'matched');
      const bases = await this.s.d.ledger.bases(this.s.tenantId, this.s.peer, c.name, matched.map(syncIdOf));
      for await (const { value } of readNdjson(join(this.s.root, c.file), () => undefined)) {
        const parsed = entrySchema.safeParse(value);
        if (!parsed.success) continue;
        const e: PackageEntryLine = parsed.data;
        const key = `${c.name}/${e.syncId}`;
        const dcs: MatchDecision | undefined = this.ids.decisions.get(key);
        if (!dcs || dcs.kind === 'ambiguous') continue;
        if (dcs.kind === 'skip') {
          this.skip(c.name);
          continue;
        }
        const scope = { notes: this.s.notes, media: this.media, refs: this.refs };
        const tv = await targetValues(key, fields, e.fields, scope);
        const x: Staged = { c, key, e, tv, locales: await locales.stage(key, e, fields, scope, tv) };
        if (dcs.kind === 'new') {
          const syncId = this.ids.indexes.get(c.name)?.bySyncId.has(e.syncId) ? randomUUID() : e.syncId;
          await this.stageCreate(x, this.refs.newId(key), syncId, true);
        } else await this.stageMatched(x, dcs, bases.get(e.syncId));
      }
    }
    for (const problem of locales.problems()) this.s.notes.block(problem);
    if (this.addNoUpdate)
      this.s.notes.warn(`${this.addNoUpdate} matched entries differ from the package: mode add never updates, they are skipped`);
  }

  private async stageCreate({ c, key, e, tv, locales }: Staged, id: string, syncId: string, record: boolean): Promise<void> {
    const { notes } = this.s;
    const { values, pending } = tv;
    for (const f of this.p.targetFields(c.name))
      if (f.required && (values[f.name] === null || values[f.name] === undefined) && (f.default === undefined || f.default === null))
        notes.block(`${key}: required field '${f.name}' has no value`);
    const slug = this.freeSlug(c.name, e.slug);
    if (slug !== e.slug && record) notes.warn(`slug '${e.slug}' is taken here: created as '${slug}'`, key);
    for (const p of pending) this.pendingMedia.add(p);
    const createdAt = e.createdAt && !Number.isNaN(Date.parse(e.createdAt)) ? Date.parse(e.createdAt) : Date.now();
    await this.staging.add(c.name, 'create', {
      id,
      syncId,
      slug,
      status: e.status,
      createdAt,
      values,
      ...(locales && Object.keys(locales).length ? { locales } : {}),
      ...localeTimes(e),
      checksum: e.checksum,
      sourceId: e.sourceId,
      record,
    });
  }

  /** A matched entry: unchanged (recorded), changed only here (kept), a conflict (resolved), or a duplicate (duplicateStrategy). */
  private async stageMatched(x: Staged, dcs: Extract<MatchDecision, { kind: 'matched' }>, ledgerBase: string | undefined): Promise<void> {
    const { c, key, e, tv } = x;
    const row = this.ids.indexes.get(c.name)!.rows.get(dcs.targetId)!;
    // With versions on either side, the package-form checksums also compare them.
    const versionsEqual = !(e.locales || row.hasLocales) || x.locales === undefined || e.checksum === row.pkgChecksum;
    if (!tv.pending.length && formHash(e.slug, e.status, tv.values) === row.formHash && versionsEqual) {
      // Unchanged: nothing to write; both sides now agree on this checksum.
      await this.staging.add(c.name, 'record', { id: row.id, syncId: e.syncId, checksum: e.checksum, sourceId: e.sourceId });
      this.skip(c.name);
      return;
    }
    const base = e.baseChecksum ?? ledgerBase;
    if (base !== undefined && e.checksum === base && row.pkgChecksum !== base) {
      // Changed only here since the last agreed version: the package holds the old one, so ours is kept
      // (whatever the duplicate strategy: this is the same entry, not a duplicate).
      this.skip(c.name);
      return;
    }
    const action = await this.actionOf(x, row, base);
    if (action === 'fail')
      this.s.notes.block(`${key}: duplicate of entry ${row.id} (matched by ${dcs.how}) and different (duplicateStrategy fail)`);
    else if (action === 'skip') this.skip(c.name);
    else if (action === 'copy') await this.stageCreate(x, randomUUID(), randomUUID(), false);
    else await this.stageUpdate(x, row);
  }

  /** What to do with a changed matched entry: the conflict's resolution, else the duplicate strategy (mode add never updates). */
  private async actionOf(
    { c, key, e, tv }: Staged,
    row: TargetRow,
    base: string | undefined,
  ): Promise<'update' | 'skip' | 'copy' | 'fail'> {
    const { input, mode, notes } = this.s;
    const conflict = base !== undefined && row.pkgChecksum !== base && e.checksum !== base && e.checksum !== row.pkgChecksum;
    const action = input.duplicateStrategy === 'update' ? 'update' : input.duplicateStrategy;
    if (conflict) {
      const chosen = input.resolutions?.[key];
      const wins = (chosen ?? (input.conflictStrategy === 'source' ? 'source' : 'target')) === 'source' && mode !== 'add';
      const decided = chosen ? (wins ? 'the package wins, as chosen' : 'kept here, as chosen') : wins ? 'the package wins' : 'skipped';
      const detail = notes.room()
        ? await conflictDetail(this.s.d, this.p.here.get(c.name)!, this.s.tenantId, row.id, e, tv.values, this.p.commonFields(c.name), wins)
        : undefined;
      notes.warn(`conflict: changed here and in the package since the last agreed version (${decided})`, key, detail);
      return wins ? 'update' : 'skip';
    }
    if (action === 'update' && mode === 'add') {
      this.addNoUpdate++;
      return 'skip';
    }
    return action;
  }

  private async stageUpdate({ c, key, e, tv, locales }: Staged, row: TargetRow): Promise<void> {
    let slug = e.slug;
    if (slug !== row.slug) {
      this.slugs.get(c.name)!.delete(row.slug);
      slug = this.freeSlug(c.name, e.slug);
      if (slug !== e.slug) this.s.notes.warn(`slug '${e.slug}' is taken here: updated as '${slug}'`, key);
    }
    for (const p of tv.pending) this.pendingMedia.add(p);
    await this.staging.add(c.name, 'update', {
      id: row.id,
      syncId: row.syncId,
      slug,
      status: e.status,
      values: tv.values,
      ...(locales ? { locales } : {}),
      ...localeTimes(e),
      checksum: e.checksum,
      sourceId: e.sourceId,
      record: true,
    });
  }

  /** The media operation (when files are carried over), the entry operations in relation order, and the skip counts. */
  async finish(operations: Array<DataOperation<ImportPayload>>): Promise<void> {
    if (this.pendingMedia.size) {
      const list: StagedMedia[] = [...this.pendingMedia].sort().map((id) => this.media.staged(id)!);
      const file = await this.staging.writeFile(list);
      operations.push({
        action: 'create',
        type: 'media',
        target: 'media files',
        count: list.length,
        outsideTransaction: true,
        payload: { kind: 'media', staging: this.staging.id, file },
      });
    }
    operations.push(...(await this.staging.finish(this.p.order(this.s))));
    for (const [name, n] of this.skipped) operations.push({ action: 'skip', type: 'entry', target: name, count: n });
  }
}

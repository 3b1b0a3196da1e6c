/**
 * The mode matrix, once. A domain compares its source (files, a package, an upload) with its target (the
 * database) and returns a diff; planFromDiff turns it into the operations of a mode, in the order every
 * domain applies them:
 *
 * | item            | add                 | merge               | mirror              | replace                      |
 * |-----------------|---------------------|---------------------|---------------------|------------------------------|
 * | only in source  | create              | create              | create              | create                       |
 * | differs         | skip (warning)      | update              | update              | delete + create (1)          |
 * | only in target  | -                   | -                   | delete (2)          | delete (2)                   |
 * | same            | -                   | -                   | -                   | delete + create (1)          |
 *
 * (1) an update instead when the target item is protected or `inPlace` (a schema is never dropped);
 *     `same` items stay untouched then. (2) a skip with a warning when the item is protected.
 * A `readOnlyReason` (the type cannot be written here) turns every change into a skip with a warning
 * (nothing for a differing item in mode add); an `updateIssue` blocks the plan in modes that update.
 *
 * Order: creates, updates and skips sorted by type (`typeOrder`) then target; `orderCreates` may reorder
 * the creates (relation order); deletes in reverse of that order, first for replace (the existing data
 * goes first), after the creates and updates otherwise; skips last.
 */
import type { SafetyMode } from './public.js';
import type { DataOperation, PlanDraft } from './public.js';

/** One item of a diff: what planFromDiff needs to know about it. */
export interface DiffItem<P = unknown> {
  /** Entity type (the operation's type). */
  type: string;
  /** The name in the source (create, update, skip); for an item only in the target, its name there. */
  name: string;
  /** The name in the target when it differs from `name` (a rename): the target of a delete. Default `name`. */
  targetName?: string;
  /** Entities the item counts for (default 1). */
  count?: number;
  /** The payload of a create (source side). */
  create?: P;
  /** The payload of an update (source and target side); default `create`. */
  update?: P;
  /** The payload of a delete (target side). */
  remove?: P;
  /** The target item must not be deleted (mirror keeps it with a warning; replace updates it in place). */
  protectedReason?: string | null;
  /** The item's type cannot be written on this instance: every change becomes a skip with a warning. */
  readOnlyReason?: string | null;
  /** Replace updates this item in place instead of deleting and creating it (e.g. a schema: DDL). */
  inPlace?: boolean;
  /** Why an update of this item cannot be made (modes that update): a blocked reason. */
  updateIssue?: string | null;
}

/** What a domain compares: items only in the source, only in the target, differing, and the same. */
export interface DataDiff<P = unknown> {
  onlyInSource: DiffItem<P>[];
  onlyInTarget: DiffItem<P>[];
  differs: DiffItem<P>[];
  same: DiffItem<P>[];
  /**
   * Optional: the order the items are visited in (warnings come in this order); default the four lists
   * in the order onlyInSource, differs, onlyInTarget, same. Every item of the lists must be in it.
   */
  order?: DiffItem<P>[];
}

/** The warnings of skips, in the domain's words. Defaults speak of files and the database. */
export interface DiffMessages {
  readOnlyOnlyInSource(type: string, name: string, reason: string): string;
  readOnlyDiffers(type: string, name: string, reason: string): string;
  readOnlyOnlyInTarget(type: string, name: string, reason: string): string;
  /** Mode add meets a differing item (name: the target's). */
  addNeverUpdates(type: string, name: string): string;
  /** Mirror or replace keeps a protected item that is only in the target. */
  keptOnlyInTarget(type: string, name: string, reason: string): string;
  /** A blocked reason from an item's updateIssue. */
  updateBlocked(item: DiffItem<unknown>, issue: string): string;
}

export const DEFAULT_DIFF_MESSAGES: DiffMessages = {
  readOnlyOnlyInSource: (type, name, reason) => `The ${type} '${name}' exists only in the files: ${reason}`,
  readOnlyDiffers: (type, name, reason) => `The ${type} '${name}' differs from its file: ${reason}`,
  readOnlyOnlyInTarget: (type, name, reason) => `The ${type} '${name}' exists only in the database: ${reason}`,
  addNeverUpdates: (type, name) => `The ${type} '${name}' differs from its file; mode add never updates`,
  keptOnlyInTarget: (type, name, reason) => `The ${type} '${name}' is not in the files but is kept: ${reason}`,
  updateBlocked: (item, issue) => `${item.type}:${item.name}: ${issue}`,
};

export interface PlanFromDiffOptions<P> {
  /** Types in dependency order (creates and updates sorted by it; deletes in reverse). Unknown types sort first. */
  typeOrder?: readonly string[];
  /** Reorders the sorted creates in place (e.g. collections after the ones their relations target). */
  orderCreates?(creates: DataOperation<P>[]): void;
  /** The payload of a skip (default: none). */
  skipPayload?(item: DiffItem<P>): P;
  /** The warning's `item` (default `<type>:<name>`). */
  itemKey?(type: string, name: string): string;
  messages?: Partial<DiffMessages>;
}

/** The operations of a mode, with the warnings of skips and the blocked reasons of updates that cannot be made. */
export interface PlanFromDiff<P> extends Pick<PlanDraft, 'warnings' | 'blockedReasons'> {
  operations: DataOperation<P>[];
}

type Kind = 'onlyInSource' | 'onlyInTarget' | 'differs' | 'same';
type Buckets<P> = Record<'creates' | 'updates' | 'deletes' | 'skips', DataOperation<P>[]>;

interface Walk<P> {
  mode: SafetyMode;
  buckets: Buckets<P>;
  out: PlanFromDiff<P>;
  msg: DiffMessages;
  options: PlanFromDiffOptions<P>;
}

const op = <P>(action: DataOperation['action'], item: DiffItem<P>, target: string, payload: P | undefined): DataOperation<P> => ({
  action,
  type: item.type,
  target,
  count: item.count ?? 1,
  ...(payload === undefined ? {} : { payload }),
});

const targetOf = (item: DiffItem<unknown>): string => item.targetName ?? item.name;
const deletes = (mode: SafetyMode): boolean => mode === 'mirror' || mode === 'replace';

function skip<P>(w: Walk<P>, item: DiffItem<P>, name: string, message: string): void {
  w.buckets.skips.push(op('skip', item, name, w.options.skipPayload?.(item)));
  w.out.warnings.push({ message, item: (w.options.itemKey ?? ((t, n) => `${t}:${n}`))(item.type, name) });
}

function replaceWhole<P>(w: Walk<P>, item: DiffItem<P>): void {
  w.buckets.deletes.push(op('delete', item, targetOf(item), item.remove));
  w.buckets.creates.push(op('create', item, item.name, item.create));
}

/** A type that cannot be written: the change it would need becomes a skip. */
function readOnly<P>(w: Walk<P>, item: DiffItem<P>, kind: Kind, reason: string): void {
  if (kind === 'onlyInSource') skip(w, item, item.name, w.msg.readOnlyOnlyInSource(item.type, item.name, reason));
  else if (kind === 'differs' && w.mode !== 'add') skip(w, item, item.name, w.msg.readOnlyDiffers(item.type, item.name, reason));
  else if (kind === 'onlyInTarget' && deletes(w.mode)) skip(w, item, item.name, w.msg.readOnlyOnlyInTarget(item.type, item.name, reason));
}

function visit<P>(w: Walk<P>, item: DiffItem<P>, kind: Kind): void {
  const { mode } = w;
  const replaceable = mode === 'replace' && !item.protectedReason && !item.inPlace;
  if (kind === 'same') {
    if (replaceable && !item.readOnlyReason) replaceWhole(w, item);
    return;
  }
  if (item.readOnlyReason) return readOnly(w, item, kind, item.readOnlyReason);
  if (kind === 'onlyInSource') w.buckets.creates.push(op('create', item, item.name, item.create));
  else if (kind === 'differs') {
    if (mode === 'add') skip(w, item, item.name, w.msg.addNeverUpdates(item.type, targetOf(item)));
    else if (item.updateIssue) w.out.blockedReasons.push(w.msg.updateBlocked(item as DiffItem<unknown>, item.updateIssue));
    else if (replaceable) replaceWhole(w, item);
    else w.buckets.updates.push(op('update', item, item.name, item.update ?? item.create));
  } else if (deletes(mode)) {
    if (item.protectedReason) skip(w, item, targetOf(item), w.msg.keptOnlyInTarget(item.type, targetOf(item), item.protectedReason));
    else w.buckets.deletes.push(op('delete', item, targetOf(item), item.remove));
  }
}

/** Sorts operations in place by type order, then target; answers them. */
export function sortByTypeAndTarget<O extends DataOperation<any>>(ops: O[], typeOrder: readonly string[] = []): O[] {
  return ops.sort(
    (a, b) => typeOrder.indexOf(a.type) - typeOrder.indexOf(b.type) || (a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
  );
}

function visitOrder<P>(diff: DataDiff<P>): Array<[DiffItem<P>, Kind]> {
  const kinds = new Map<DiffItem<P>, Kind>();
  for (const kind of ['onlyInSource', 'differs', 'onlyInTarget', 'same'] as const) for (const item of diff[kind]) kinds.set(item, kind);
  const order = diff.order ?? [...kinds.keys()];
  if (order.length !== kinds.size || order.some((i) => !kinds.has(i)))
    throw new Error('planFromDiff: diff.order must list every item once');
  return order.map((item) => [item, kinds.get(item)!]);
}

/** The operations of `mode` for a domain's diff (see the table above). No I/O. */
export function planFromDiff<P = unknown>(diff: DataDiff<P>, mode: SafetyMode, options: PlanFromDiffOptions<P> = {}): PlanFromDiff<P> {
  const out: PlanFromDiff<P> = { operations: [], warnings: [], blockedReasons: [] };
  const buckets: Buckets<P> = { creates: [], updates: [], deletes: [], skips: [] };
  const w: Walk<P> = { mode, buckets, out, options, msg: { ...DEFAULT_DIFF_MESSAGES, ...options.messages } };
  for (const [item, kind] of visitOrder(diff)) visit(w, item, kind);
  const typeOrder = options.typeOrder ?? [];
  sortByTypeAndTarget(buckets.creates, typeOrder);
  sortByTypeAndTarget(buckets.updates, typeOrder);
  sortByTypeAndTarget(buckets.skips, typeOrder);
  options.orderCreates?.(buckets.creates);
  const dels = sortByTypeAndTarget(buckets.deletes, typeOrder).reverse();
  const { creates, updates, skips } = buckets;
  out.operations = mode === 'replace' ? [...dels, ...creates, ...updates, ...skips] : [...creates, ...updates, ...dels, ...skips];
  return out;
}

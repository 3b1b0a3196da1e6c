/**
 * A component's field list changing (issue 35, item 6), applied to the values that hold it: entries keep
 * component and blocks values as JSON, so every instance of the component (in a component field, inside
 * another component, or as a block) loses the keys of removed fields, converts the values of fields whose
 * type changes (field-conversion.ts rules; a value that does not fit becomes null) and drops the blocks of
 * types a blocks field no longer allows. No database: the plan counts with it and the rewrite writes with it
 * (component-schema-plan.ts). Nothing is renamed.
 */
import { COMPONENT_DEPTH, type ComponentDefs } from './component-resolution.js';
import { convertValue, sameStorage } from './field-conversion.js';
import { valueSchema } from './field-values.js';
import type { FieldDefinition } from './field-types.js';

export interface ComponentChange {
  name: string;
  before: readonly FieldDefinition[];
  after: readonly FieldDefinition[];
}

/** What the change does to one field of the component, over every instance walked. */
export interface FieldTally {
  /** Instances holding a value of the field. */
  values: number;
  /** Values lost: all of a dropped field, those that do not convert, and blocks of types no longer allowed. */
  lost: number;
  /** Up to 20 distinct lost values (conversions), as text. */
  examples: Set<string>;
  /** Blocks dropped per component name (a blocks field whose allowed list shrank). */
  droppedBlocks: Map<string, number>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const present = (v: unknown) => v !== undefined && v !== null;

/** The component names a field's values may hold. */
const namesOf = (f: FieldDefinition): readonly string[] =>
  f.type === 'component' && f.component ? [f.component] : f.type === 'blocks' ? (f.components ?? []) : [];

/** Whether values of `f` may hold component `target`, directly or nested (at most COMPONENT_DEPTH levels). */
export function reaches(f: FieldDefinition, target: string, defs: ComponentDefs, level = 1): boolean {
  const names = namesOf(f);
  if (names.includes(target)) return true;
  if (level >= COMPONENT_DEPTH) return false;
  return names.some((n) => (defs.get(n)?.fields ?? []).some((g) => reaches(g, target, defs, level + 1)));
}

/** The component names a kept blocks field no longer allows (none for other fields). */
export function removedBlockTypes(was: FieldDefinition, f: FieldDefinition): Set<string> {
  if (was.type !== 'blocks' || f.type !== 'blocks') return new Set();
  const allowed = new Set(f.components ?? []);
  return new Set((was.components ?? []).filter((n) => !allowed.has(n)));
}

/**
 * A blocks value without the blocks of the `removed` types (the same array when it holds none), counting
 * them per component name in `counts`.
 */
export function withoutBlocks(blocks: readonly unknown[], removed: ReadonlySet<string>, counts: Map<string, number>): unknown[] {
  const kept = blocks.filter((b) => {
    const name = isObject(b) ? b.__component : undefined;
    if (typeof name !== 'string' || !removed.has(name)) return true;
    counts.set(name, (counts.get(name) ?? 0) + 1);
    return false;
  });
  return kept.length === blocks.length ? (blocks as unknown[]) : kept;
}

/** Walks values and rewrites the instances of one component; `tally` counts what it did (or would do). */
export class ComponentRewriter {
  /** Instances of the component walked. */
  instances = 0;
  readonly tally = new Map<string, FieldTally>();
  private readonly next: Map<string, FieldDefinition>;

  constructor(
    private readonly change: ComponentChange,
    /** The component definitions before the change (the nesting the stored values follow). */
    private readonly defs: ComponentDefs,
  ) {
    this.next = new Map(change.after.map((f) => [f.name, f]));
    for (const f of [...change.after, ...change.before])
      if (!this.tally.has(f.name)) this.tally.set(f.name, { values: 0, lost: 0, examples: new Set(), droppedBlocks: new Map() });
  }

  /** The value of field `f` with the component's instances rewritten (the same reference when nothing changes). */
  value(f: FieldDefinition, v: unknown, level = 1): unknown {
    if (f.type === 'component' && f.component) {
      const name = f.component;
      if (f.repeatable) return Array.isArray(v) ? this.list(v, () => name, level) : v;
      return isObject(v) ? this.object(name, v, level) : v;
    }
    if (f.type === 'blocks' && Array.isArray(v))
      return this.list(v, (b) => (typeof b.__component === 'string' ? b.__component : undefined), level);
    return v;
  }

  private list(items: unknown[], nameOf: (o: Json) => string | undefined, level: number): unknown[] {
    let changed = false;
    const out = items.map((item) => {
      const name = isObject(item) ? nameOf(item) : undefined;
      if (name === undefined) return item;
      const next = this.object(name, item as Json, level);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : items;
  }

  private object(name: string, o: Json, level: number): Json {
    const target = name === this.change.name;
    const fields = target ? this.change.before : this.defs.get(name)?.fields;
    if (!fields || level > COMPONENT_DEPTH + 1) return o;
    let out = o;
    for (const g of fields) {
      if (!namesOf(g).length || !present(o[g.name])) continue;
      const v = this.value(g, o[g.name], level + 1);
      if (v === o[g.name]) continue;
      if (out === o) out = { ...o };
      out[g.name] = v;
    }
    return target ? this.apply(out) : out;
  }

  /** One instance of the component, changed. */
  private apply(o: Json): Json {
    this.instances++;
    const out = { ...o };
    let changed = false;
    for (const was of this.change.before) {
      const t = this.tally.get(was.name)!;
      const f = this.next.get(was.name);
      const v = out[was.name];
      if (!f) {
        if (was.name in out) {
          delete out[was.name];
          changed = true;
        }
        if (present(v)) {
          t.values++;
          t.lost++;
        }
        continue;
      }
      if (!present(v)) continue;
      t.values++;
      const next = this.converted(was, f, v, t);
      if (next === v) continue;
      out[f.name] = next;
      changed = true;
    }
    return changed ? out : o;
  }

  /** A kept field's value under its new definition: converted (null when it does not fit), or fewer blocks. */
  private converted(was: FieldDefinition, f: FieldDefinition, v: unknown, t: FieldTally): unknown {
    if (!sameStorage(was, f)) {
      if (valueSchema(f).safeParse(v).success) return v;
      const c = convertValue(was, f, v);
      if (c !== undefined) return c;
      t.lost++;
      if (t.examples.size < 20) t.examples.add(typeof v === 'string' ? v : JSON.stringify(v));
      return null;
    }
    const removed = removedBlockTypes(was, f);
    if (!removed.size || !Array.isArray(v)) return v;
    const kept = withoutBlocks(v, removed, t.droppedBlocks);
    t.lost += v.length - kept.length;
    return kept;
  }
}

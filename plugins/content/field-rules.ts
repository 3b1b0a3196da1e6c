/**
 * The value rules a field may carry (issue 35): `min`/`max` (inclusive) and `pattern`, and which field
 * types they mean something for. One table per type, so later types (a repeatable component, blocks, a
 * many-relation: all counted by their items) add a row here instead of a branch in every check.
 * No imports: field-values.ts (loaded by worker tasks) and the admin UI's schema editor read it.
 */

/** What `min`/`max` bound: the number itself, the length of the text, or the number of items of a list. */
export type Measure = 'value' | 'length' | 'items';

/** The parts of a field definition the rules depend on. */
export interface RuleSubject {
  type: string;
  multiple?: boolean;
  cardinality?: string;
  repeatable?: boolean;
}

interface TypeRules {
  /** What min/max bound for this type (absent: the type takes no min/max). */
  measure?: Measure | ((f: RuleSubject) => Measure | undefined);
  /** The type takes `pattern`. */
  pattern?: boolean;
  /** The type takes `multiple`. */
  multiple?: boolean;
}

/** Per field type: the rules it takes. Types not listed take none. */
export const TYPE_RULES: Readonly<Record<string, TypeRules>> = {
  number: { measure: 'value' },
  text: { measure: 'length', pattern: true },
  email: { measure: 'length' },
  url: { measure: 'length' },
  select: { measure: (f) => (f.multiple ? 'items' : undefined), multiple: true },
  relation: { measure: (f) => (f.cardinality === 'many' ? 'items' : undefined) },
  component: { measure: (f) => (f.repeatable ? 'items' : undefined) },
  blocks: { measure: 'items' },
};

/** What min/max bound for this field, or undefined when it takes none. */
export function measureOf(f: RuleSubject): Measure | undefined {
  const m = TYPE_RULES[f.type]?.measure;
  return typeof m === 'function' ? m(f) : m;
}

export const takesPattern = (f: RuleSubject): boolean => Boolean(TYPE_RULES[f.type]?.pattern);
export const takesMultiple = (f: RuleSubject): boolean => Boolean(TYPE_RULES[f.type]?.multiple);

/** Longest `pattern` source. */
export const PATTERN_MAX = 500;

/**
 * Why a `pattern` cannot be used, or undefined when it can. It must compile as a JavaScript regular
 * expression (no flags; it matches anywhere unless anchored with ^ and $, as JSON Schema's `pattern`),
 * be at most PATTERN_MAX characters, and must not repeat a group that itself holds an unbounded
 * quantifier (`(a+)+`, `(\w*)*`, `(x+){2,}`): that shape backtracks exponentially on a near miss.
 * Values are at most 255 characters, which bounds the polynomial cases; overlapping alternatives
 * under a quantifier (`(a|a)*`) are not detected, and the length bound is what limits them.
 */
export function patternProblem(pattern: string): string | undefined {
  if (pattern.length > PATTERN_MAX) return `a pattern of at most ${PATTERN_MAX} characters`;
  try {
    new RegExp(pattern);
  } catch (err) {
    return `not a valid regular expression: ${(err as Error).message}`;
  }
  if (hasNestedQuantifier(pattern))
    return 'a group with an unbounded quantifier may not be repeated (such as (a+)+): it can take exponential time';
  return undefined;
}

/** The quantifier at `i` (+, *, ?, {n}, {n,}, {n,m}), its length and whether it repeats without bound (or more than once). */
function quantifierAt(p: string, i: number): { length: number; repeats: boolean } | undefined {
  const c = p[i];
  if (c === '+' || c === '*') return { length: p[i + 1] === '?' || p[i + 1] === '+' ? 2 : 1, repeats: true };
  if (c === '?') return { length: 1, repeats: false };
  if (c !== '{') return undefined;
  const m = /^\{(\d+)(,(\d*))?\}\??/.exec(p.slice(i));
  if (!m) return undefined;
  const upper = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
  return { length: m[0].length, repeats: upper > 1 };
}

/** A group whose content repeats without bound, itself repeated: `(a+)+`, `(?:a|b*)*`, `((ab)*c){2,}`. */
function hasNestedQuantifier(p: string): boolean {
  const stack: boolean[] = []; // per open group: does it hold a repeating quantifier?
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') stack.push(false);
    else if (c === ')') {
      const inner = stack.pop() ?? false;
      const q = quantifierAt(p, i + 1);
      if (q?.repeats && inner) return true;
      // A repeated group repeats for its parent too; so does one that holds a repeating quantifier.
      if (stack.length && (inner || q?.repeats)) stack[stack.length - 1] = true;
      if (q) i += q.length;
    } else {
      const q = quantifierAt(p, i);
      if (q) {
        if (q.repeats && stack.length) stack[stack.length - 1] = true;
        i += q.length - 1;
      }
    }
  }
  return false;
}

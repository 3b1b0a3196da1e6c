/**
 * Canonical JSON (RFC 8785, the JSON Canonicalization Scheme) for JSON values: the one serialisation
 * both sides of the update check sign and verify (see lib/text/update-signature.ts).
 *
 * - object keys sorted by their UTF-16 code units (JavaScript's default string order), no whitespace;
 * - numbers in the ECMAScript form (`JSON.stringify` of a finite number: `1e+21`, `0.1`, `-0` -> `0`);
 *   NaN and the infinities are refused;
 * - strings escaped as ECMAScript's JSON.stringify does (`\"`, `\\`, `\b \f \n \r \t`, other control
 *   characters as lower-case `\u00xx`, everything else as is); a lone surrogate is refused (I-JSON);
 * - values are first converted as JSON.stringify converts them (`toJSON`, an `undefined` member is left
 *   out, an `undefined` array element is `null`), so the canonical form of a value is the canonical form
 *   of what `JSON.parse(JSON.stringify(value))` gives on the other side.
 */
export class CanonicalJsonError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'CanonicalJsonError';
  }
}

export interface CanonicalJsonOptions {
  /** Nesting deeper than this is refused (default 64): input from a client is bounded. */
  maxDepth?: number;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function string(value: string): string {
  if (LONE_SURROGATE.test(value)) throw new CanonicalJsonError('A string holds a lone surrogate (not valid I-JSON)');
  return JSON.stringify(value);
}

function serialise(value: unknown, depth: number, maxDepth: number, inArray: boolean): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    value = (value as { toJSON(): unknown }).toJSON();
  switch (typeof value) {
    case 'string':
      return string(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${value} has no JSON form`);
      return JSON.stringify(value);
    case 'undefined':
    case 'function':
    case 'symbol':
      return inArray ? 'null' : undefined;
    case 'bigint':
      throw new CanonicalJsonError('A BigInt has no JSON form');
    default:
      break;
  }
  if (value === null) return 'null';
  if (depth >= maxDepth) throw new CanonicalJsonError(`Nested deeper than ${maxDepth} levels`);
  if (Array.isArray(value)) return `[${value.map((v) => serialise(v, depth + 1, maxDepth, true)).join(',')}]`;
  const parts: string[] = [];
  for (const key of Object.keys(value as object).sort()) {
    const member = serialise((value as Record<string, unknown>)[key], depth + 1, maxDepth, false);
    if (member !== undefined) parts.push(`${string(key)}:${member}`);
  }
  return `{${parts.join(',')}}`;
}

/** The RFC 8785 canonical JSON text of a JSON value. */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  const out = serialise(value, 0, options.maxDepth ?? 64, false);
  if (out === undefined) throw new CanonicalJsonError(`${typeof value} has no JSON form`);
  return out;
}

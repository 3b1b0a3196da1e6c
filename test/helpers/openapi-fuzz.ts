import fc from 'fast-check';

/**
 * Inputs for fuzzing the API from its own OpenAPI document: fast-check arbitraries built from the
 * (JSON Schema 2020-12) schemas zod-openapi writes, hostile values and whole hostile bodies, and the
 * encoders that put them on the wire byte for byte (lone surrogates, NUL, raw JSON text that
 * JSON.stringify cannot produce: duplicate keys, 10k-deep nesting, 1e400).
 */

export type JsonSchema = Record<string, any>;

/** Text that goes verbatim into a JSON document (1e400, -0, 10k-deep nesting). */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
}

/** An object written with its pairs in order, keys may repeat (duplicate keys, an own `__proto__` key). */
export class DupObject {
  constructor(readonly pairs: Array<[string, unknown]>) {}
}

/** JSON text of a value that may hold RawJson and DupObject; never recursive beyond the value's own depth. */
export function toJsonText(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (v instanceof DupObject) return `{${v.pairs.map(([k, x]) => `${JSON.stringify(k)}:${toJsonText(x)}`).join(',')}}`;
  if (Array.isArray(v)) return `[${v.map((x) => toJsonText(x)).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .map((k) => `${JSON.stringify(k)}:${toJsonText((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  if (v === undefined) return 'null';
  return JSON.stringify(v); // lone surrogates become \udXXX escapes, which JSON.parse turns back into lone surrogates
}

// ---------------------------------------------------------------------------------------------------
// Hostile values

export const DEPTH = 10_000;
export const DEEP_ARRAY = new RawJson(`${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`, '10k-deep array');
export const DEEP_OBJECT = new RawJson(`${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`, '10k-deep object');
export const LONG = 100_000;

/** Strings for any context (URL-safe once encoded; the long ones are added per context). */
export const HOSTILE_STRINGS: string[] = [
  'a\u0000b',
  '\u0000',
  '\u0001\u0002\u0003\u0007\u0008\u000b\u000c\u000e\u001b\u001f\u007f',
  '\u0085\u2028\u2029\ufeff\ufffe\uffff',
  '\ud800',
  'a\udfffb',
  '\udc00\ud800',
  '\u202eevil\u202c',
  'tab\tnew\nline\r\n',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '-1e308',
  '18446744073709551616',
  '-0',
  '0x1F',
  '9007199254740993',
  '',
  ' ',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%00',
  "' OR '1'='1' --",
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'true',
  '[]',
  '{}',
  '😀'.repeat(3),
  'é\u0301',
];

/** Extra strings for JSON bodies only: 100k characters (one and two UTF-16 units per character). */
export const LONG_STRINGS: string[] = ['x'.repeat(LONG), '\u{1F600}'.repeat(LONG / 2), `${'a\u0000'.repeat(LONG / 2)}`];

/** Strings for URLs: overlong but under Node's 16 KiB header limit (431 is Node's answer, not ours). */
export const URL_LONG_STRINGS: string[] = ['x'.repeat(8000), '\u00e9'.repeat(1200)];

/** Values for JSON bodies: wrong types, huge numbers, deep nesting, prototype keys, control characters. */
export const HOSTILE_JSON_VALUES: unknown[] = [
  ...HOSTILE_STRINGS,
  ...LONG_STRINGS,
  null,
  true,
  false,
  0,
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 64,
  -(2 ** 64),
  Number.MAX_SAFE_INTEGER + 2,
  5e-324,
  new RawJson('-0', '-0'),
  new RawJson('1e400', '1e400 (Infinity)'),
  new RawJson('-1e400', '-1e400 (-Infinity)'),
  new RawJson(`1${'0'.repeat(400)}`, '400-digit integer'),
  new RawJson(`0.${'0'.repeat(400)}1`, '400-digit fraction'),
  new RawJson('1E+308', '1E+308'),
  new RawJson('123456789012345678901234567890', '30-digit integer'),
  [],
  {},
  [[]],
  [null],
  ['x'],
  { a: 'b' },
  Array.from({ length: 1000 }, (_, i) => i),
  new DupObject([['__proto__', { polluted: true }]]),
  new DupObject([['constructor', { prototype: { polluted: true } }]]),
  DEEP_ARRAY,
  DEEP_OBJECT,
];

// ---------------------------------------------------------------------------------------------------
// Arbitraries from JSON Schema

/**
 * What the document cannot say: real values for properties of a given name (ids that exist, a GraphQL
 * document that parses), and the shape of a free-form object (an entry of a collection).
 */
export interface SchemaHints {
  property?(name: string): fc.Arbitrary<unknown> | undefined;
  freeObject?(): fc.Arbitrary<unknown> | undefined;
}

export class SchemaArbitraries {
  private readonly cache = new Map<JsonSchema, fc.Arbitrary<unknown>>();

  constructor(
    private readonly doc: { components?: { schemas?: Record<string, JsonSchema> } },
    private readonly hints: SchemaHints = {},
  ) {}

  /** A property's values: its schema's, and (more often) the hint for its name when there is one. */
  property(name: string, schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
    return this.withHint(name, this.of(schema));
  }

  resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
    let s = schema;
    for (let i = 0; s && typeof s === 'object' && typeof s.$ref === 'string' && i < 10; i++) {
      s = this.doc.components?.schemas?.[String(s.$ref).split('/').pop()!];
    }
    return s;
  }

  /** Values the schema accepts (mostly: patterns and formats are approximations). */
  of(schema: JsonSchema | boolean | undefined, depth = 0): fc.Arbitrary<unknown> {
    if (schema === undefined || schema === true || (typeof schema === 'object' && Object.keys(schema).length === 0)) return anyJson;
    if (schema === false) return fc.constant(null);
    if (depth > 6) return fc.constant(null);
    const cached = this.cache.get(schema);
    if (cached) return cached;
    const arb = this.build(schema, depth);
    this.cache.set(schema, arb);
    return arb;
  }

  private build(raw: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    const s = this.resolve(raw) ?? {};
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...s.enum);
    if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
      const options = (s.anyOf ?? s.oneOf) as JsonSchema[];
      const rest = { ...s };
      delete rest.anyOf;
      delete rest.oneOf;
      return fc.oneof(...options.map((o) => this.of({ ...rest, ...this.resolve(o) }, depth + 1)));
    }
    if (Array.isArray(s.allOf)) {
      const merged: JsonSchema = { ...s, allOf: undefined, properties: {}, required: [] };
      for (const part of s.allOf.map((p: JsonSchema) => this.resolve(p) ?? {})) {
        Object.assign(merged, part, {
          properties: { ...merged.properties, ...(part.properties ?? {}) },
          required: [...merged.required, ...(part.required ?? [])],
        });
      }
      delete merged.allOf;
      return this.of(merged, depth + 1);
    }
    if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type: string) => this.of({ ...s, type }, depth + 1)));
    switch (s.type) {
      case 'string':
        return stringFor(s);
      case 'integer': {
        const min = Math.max(Number.isFinite(s.minimum) ? Math.ceil(s.minimum) : -(2 ** 31), -(2 ** 31));
        const max = Math.min(Number.isFinite(s.maximum) ? Math.floor(s.maximum) : 2 ** 31 - 1, 2 ** 31 - 1);
        return min <= max ? fc.integer({ min, max }) : fc.constant(min);
      }
      case 'number': {
        const min = Number.isFinite(s.minimum) ? s.minimum : -1e9;
        const max = Number.isFinite(s.maximum) ? s.maximum : 1e9;
        return fc.oneof(
          fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
          fc.integer({ min: Math.ceil(Math.max(min, -1e9)), max: Math.floor(Math.min(max, 1e9)) }),
        );
      }
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const minLength = Math.min(s.minItems ?? 0, 4);
        const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 4, 4));
        return fc.array(this.of(s.items ?? {}, depth + 1), { minLength, maxLength });
      }
      case 'object':
      default:
        if (s.type === undefined && !s.properties && !s.additionalProperties) return anyJson;
        return this.object(s, depth);
    }
  }

  private object(s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    const props = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>);
    const required = new Set<string>(s.required ?? []);
    const record = props.length
      ? fc.record(Object.fromEntries(props.map(([k, v]) => [k, this.withHint(k, this.of(v, depth + 1))])), {
          requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)),
        })
      : fc.constant({});
    if (s.additionalProperties === false || (props.length && s.additionalProperties === undefined)) return record;
    const keyArb = s.propertyNames?.pattern
      ? (stringFor(s.propertyNames) as fc.Arbitrary<string>)
      : fc.oneof(
          fc.constantFrom('title', 'name', 'slug', 'status', 'body', 'views', 'featured', 'meta', 'category', 'publishedOn', 'id', '_id'),
          fc.string({ minLength: 1, maxLength: 12 }),
        );
    const valueArb =
      s.additionalProperties && typeof s.additionalProperties === 'object' && Object.keys(s.additionalProperties).length
        ? this.of(s.additionalProperties, depth + 1)
        : anyJson;
    const free = fc.tuple(record, fc.dictionary(keyArb, valueArb, { maxKeys: 5 })).map(([r, extra]) => ({ ...extra, ...(r as object) }));
    const shaped = !props.length ? this.hints.freeObject?.() : undefined;
    return shaped ? fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 1, arbitrary: free }) : free;
  }

  private withHint(name: string, arb: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
    const hinted = this.hints.property?.(name);
    return hinted ? fc.oneof({ weight: 2, arbitrary: hinted }, { weight: 1, arbitrary: arb }) : arb;
  }
}

const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 2 });

const patternCache = new Map<string, fc.Arbitrary<string> | null>();
function matching(pattern: string, maxLength: number): fc.Arbitrary<string> | null {
  const key = `${pattern}\u0000${maxLength}`;
  if (!patternCache.has(key)) {
    let arb: fc.Arbitrary<string> | null = null;
    try {
      arb = fc.stringMatching(new RegExp(pattern), { maxLength });
      fc.sample(arb, { numRuns: 3, seed: 1 });
    } catch {
      arb = null;
    }
    patternCache.set(key, arb);
  }
  return patternCache.get(key)!;
}

function stringFor(s: JsonSchema): fc.Arbitrary<unknown> {
  const minLength = Math.max(0, s.minLength ?? 0);
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 40, 60));
  switch (s.format) {
    case 'uuid':
      return fc.uuid({ version: [4, 7] });
    case 'email':
      return fc.oneof(
        { weight: 1, arbitrary: fc.emailAddress().filter((e) => e.length <= (s.maxLength ?? 191)) },
        { weight: 3, arbitrary: fc.stringMatching(/^[a-z]{1,10}@example\.com$/) },
      );
    case 'date-time':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
    case 'uri':
    case 'url':
      return fc.webUrl();
    default:
      break;
  }
  if (typeof s.pattern === 'string') {
    const arb = matching(s.pattern, Math.max(maxLength, s.maxLength ?? 255));
    if (arb) return arb;
  }
  return fc.oneof(
    fc.string({ minLength, maxLength }),
    fc.string({ minLength, maxLength, unit: 'grapheme' }),
    fc.string({
      minLength: Math.max(minLength, 1),
      maxLength: Math.max(minLength, 12),
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'),
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// Mutations: one node of a valid value replaced by a hostile one

type Path = Array<string | number>;

function nodePaths(v: unknown, path: Path = [], out: Path[] = [], depth = 0): Path[] {
  out.push(path);
  if (depth > 8) return out;
  if (Array.isArray(v)) v.forEach((x, i) => nodePaths(x, [...path, i], out, depth + 1));
  else if (v !== null && typeof v === 'object' && !(v instanceof RawJson) && !(v instanceof DupObject)) {
    for (const k of Object.keys(v)) nodePaths((v as Record<string, unknown>)[k], [...path, k], out, depth + 1);
  }
  return out;
}

function replaceAt(v: unknown, path: Path, replacement: unknown): unknown {
  if (!path.length) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? replaceAt(x, rest, replacement) : x));
  const copy: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  copy[head as string] = replaceAt(copy[head as string], rest, replacement);
  return copy;
}

function mapStrings(v: unknown, f: (s: string) => unknown, depth = 0): unknown {
  if (typeof v === 'string') return f(v);
  if (depth > 8) return v;
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f, depth + 1));
  if (v !== null && typeof v === 'object' && !(v instanceof RawJson) && !(v instanceof DupObject)) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f, depth + 1)]));
  }
  return v;
}

export const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_JSON_VALUES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\ud800', '\udfff', 'a'),
      minLength: 1,
      maxLength: 20,
    }),
  },
  { weight: 1, arbitrary: fc.double() }, // NaN and the infinities become null in JSON text
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

export interface MutatedValue {
  value: unknown;
  how: string;
}

/** A valid value with one hostile change: a node replaced, an unknown key added, or every string replaced. */
export function mutate(valid: fc.Arbitrary<unknown>): fc.Arbitrary<MutatedValue> {
  return fc
    .tuple(
      valid,
      fc.nat(),
      hostileJsonValue,
      fc.constantFrom('replace', 'replace', 'replace', 'extra-key', 'all-strings'),
      fc.string({ maxLength: 10 }),
    )
    .map(([v, n, bad, kind, key]) => {
      const label = describeValue(bad);
      if (kind === 'extra-key' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
        return {
          value: { ...(v as object), [key || 'unknownKey']: bad },
          how: `extra key ${JSON.stringify(key || 'unknownKey')} = ${label}`,
        };
      }
      if (kind === 'all-strings' && typeof bad === 'string') {
        return { value: mapStrings(v, () => bad), how: `every string = ${label}` };
      }
      const paths = nodePaths(v);
      const path = paths[n % paths.length]!;
      return { value: replaceAt(v, path, bad), how: `${path.length ? path.join('.') : '(root)'} = ${label}` };
    });
}

/** A short, printable description of a (hostile) value. */
export function describeValue(v: unknown, max = 80): string {
  if (v instanceof RawJson) return v.label;
  const text = v instanceof DupObject ? toJsonText(v) : typeof v === 'string' ? v : toJsonText(v);
  const shown = typeof v === 'string' ? JSON.stringify(text.length > max ? `${text.slice(0, max)}` : text) : text.slice(0, max);
  return `${shown}${text.length > max ? `…(${text.length} chars)` : ''}`;
}

// ---------------------------------------------------------------------------------------------------
// Encoding for URLs: percent-encode code unit by code unit, lone surrogates as their (invalid) 3 bytes

export function encodeLoose(s: string, keepSlash = false): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (/[A-Za-z0-9\-._~]/.test(ch) || (keepSlash && ch === '/')) {
      out += ch;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** Path segments already encoded, sent as they are. */
export const RAW_PATH_SEGMENTS: string[] = [
  '%00',
  'a%00b',
  '%01%1F%7F',
  '%ED%A0%80',
  '%FF%FE',
  '%C0%AF',
  '%',
  '%zz',
  '%E2%80%AE',
  '..%2F..%2Fetc%2Fpasswd',
  '%2e%2e',
  '%2F',
  '%5C..%5C',
  '%20',
  'NaN',
  '1e308',
  '-1e308',
  '18446744073709551616',
  '-1',
  '0',
  '00000000-0000-0000-0000-000000000000',
  'null',
  '%7B%7D',
  'x'.repeat(8000),
  '%3Cscript%3E',
  '%27%20OR%201%3D1--',
];

/** Query strings sent as they are (`P` is replaced by a parameter name). */
export const RAW_QUERIES: string[] = [
  'P[]=1&P[]=2',
  'P=1&P=2',
  'P[a]=1',
  'P=%',
  'P=%zz',
  'P=%ED%A0%80',
  'P=%FF%FE',
  'P=%00',
  'P=a%00b',
  'P=%01%1F',
  'P=NaN',
  'P=Infinity',
  'P=1e308',
  'P=-1e308',
  'P=18446744073709551616',
  'P=0x10',
  'P=-0',
  'P=',
  'P',
  'P=true&P[]=x&P[k]=y',
  '__proto__[polluted]=1&constructor[prototype][polluted]=1',
  '&&&=&=&',
  `P=${'x'.repeat(8000)}`,
];

// ---------------------------------------------------------------------------------------------------
// Multipart bodies written by hand (a NUL or a lone surrogate in a filename, no boundary, truncated)

export interface MultipartPart {
  name?: string;
  filename?: string;
  contentType?: string;
  data: string | Uint8Array;
  /** Raw bytes for the Content-Disposition header line (overrides name/filename). */
  rawDisposition?: Uint8Array;
}

export function multipartBody(
  parts: MultipartPart[],
  options: { boundary?: string; truncate?: boolean } = {},
): { contentType: string; body: Uint8Array } {
  const boundary = options.boundary ?? 'cmsfuzzboundary7MA4YWxkTrZu0gW';
  const chunks: Uint8Array[] = [];
  const text = (s: string) => chunks.push(Buffer.from(s, 'utf8'));
  for (const part of parts) {
    text(`--${boundary}\r\n`);
    if (part.rawDisposition) {
      chunks.push(part.rawDisposition);
      text('\r\n');
    } else {
      text(
        `Content-Disposition: form-data${part.name !== undefined ? `; name="${part.name}"` : ''}${part.filename !== undefined ? `; filename="${part.filename}"` : ''}\r\n`,
      );
    }
    if (part.contentType) text(`Content-Type: ${part.contentType}\r\n`);
    text('\r\n');
    chunks.push(typeof part.data === 'string' ? Buffer.from(part.data, 'utf8') : part.data);
    text('\r\n');
  }
  if (!options.truncate) text(`--${boundary}--\r\n`);
  const body = Buffer.concat(chunks);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    body: options.truncate ? body.subarray(0, Math.max(0, body.length - 7)) : body,
  };
}

/** A 1x1 PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

export const fileContents: fc.Arbitrary<{ bytes: Uint8Array; kind: string }> = fc.oneof(
  fc.constant({ bytes: TINY_PNG, kind: 'png' }),
  fc.constant({ bytes: Buffer.from('title,body\nHello,World\n"a ""quoted"" one",x\n'), kind: 'csv' }),
  fc.constant({ bytes: Buffer.from('{"posts":[{"title":"a"}]}'), kind: 'json' }),
  fc.constant({ bytes: Buffer.from('<?xml version="1.0"?><rss version="2.0"><channel><title>x</title></channel></rss>'), kind: 'xml' }),
  fc.constant({ bytes: Buffer.from('%PDF-1.4\n%%EOF\n'), kind: 'pdf' }),
  fc.uint8Array({ maxLength: 200 }).map((b) => ({ bytes: b, kind: 'random bytes' })),
  fc.string({ maxLength: 200 }).map((s) => ({ bytes: Buffer.from(s), kind: 'text' })),
);

export const filenames: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('a.txt', 'image.png', 'export.csv', 'data.json', 'feed.xml', 'doc.pdf', 'archive.zip', 'noext', '.hidden', 'x.tar.gz'),
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.constantFrom(...HOSTILE_STRINGS),
);

// ---------------------------------------------------------------------------------------------------
// GraphQL documents: hostile ones, and one per field of the schema (from introspection)

export const GRAPHQL_HOSTILE_DOCUMENTS: string[] = [
  '{ __typename }',
  '{ __schema { types { name kind fields { name args { name } } } } }',
  `{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } }`,
  `query { ${'a{'.repeat(4000)}b${'}'.repeat(4000)} }`,
  `${'{'.repeat(9000)}${'}'.repeat(9000)}`,
  `query { ${'['.repeat(3000)} }`,
  'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }',
  `query { ...F0 } ${Array.from({ length: 300 }, (_, i) => `fragment F${i} on Query { __typename ...F${i + 1} }`).join(' ')} fragment F300 on Query { __typename }`,
  `{ ${Array.from({ length: 2000 }, (_, i) => `a${i}: __typename`).join(' ')} }`,
  `{ __typename ${'@include(if: true) '.repeat(1000)}}`,
  'subscription { __typename }',
  'mutation { __typename }',
  'query A { __typename } query A { __typename }',
  '',
  '# only a comment',
  'query ($v: String = "\u0000") { __typename }',
  '{ __type(name: "\ud800") { name } }',
  `{ __type(name: "${'x'.repeat(15000)}") { name } }`,
  'query ($a: Int) { __typename(x: $a) }',
  `query (${Array.from({ length: 500 }, (_, i) => `$v${i}: Int`).join(', ')}) { __typename }`,
];

export interface GraphqlField {
  kind: 'query' | 'mutation';
  name: string;
  args: Array<{ name: string; type: string }>;
}

/** The type of an introspected argument, written as in a document (NON_NULL and LIST unwrapped). */
export function graphqlTypeName(t: { kind: string; name: string | null; ofType?: any } | null | undefined): string {
  if (!t) return 'String';
  if (t.kind === 'NON_NULL') return `${graphqlTypeName(t.ofType)}!`;
  if (t.kind === 'LIST') return `[${graphqlTypeName(t.ofType)}]`;
  return t.name ?? 'String';
}

/** A document calling one field with every argument as a variable (`__typename` as the selection, which fits object results). */
export function graphqlDocumentFor(f: GraphqlField, selection: string): string {
  const defs = f.args.map((a) => `$${a.name}: ${a.type}`).join(', ');
  const args = f.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  return `${f.kind}${defs ? ` Fuzz(${defs})` : ''} { ${f.name}${args ? `(${args})` : ''}${selection ? ` { ${selection} }` : ''} }`;
}

export const GRAPHQL_INTROSPECTION = `{ __schema {
  queryType { fields { name args { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
  mutationType { fields { name args { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
} }`;

/** Strings a filter (JSON in a query parameter) may hold, hostile ones included. */
export const FILTER_STRINGS: string[] = [
  '{"title":"a"}',
  '{"title":{"contains":"a"}}',
  '{"views":{"gt":1}}',
  '{"views":{"gte":1e308}}',
  '{"views":{"lt":"x"}}',
  '{"title":{"in":["a","b"]}}',
  `{"title":{"in":[${Array.from({ length: 300 }, (_, i) => `"v${i}"`).join(',')}]}}`,
  '{"title":{"contains":"%_\\\\"}}',
  '{"title":{"eq":null}}',
  '{"title":{"ne":{"$gt":""}}}',
  '{"nope":1}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"title":{"regex":".*"}}',
  '{"meta":{"eq":{"a":1}}}',
  '{"featured":{"eq":"true"}}',
  '{"publishedOn":{"gt":"not a date"}}',
  '{"category":{"in":"news"}}',
  '[]',
  'null',
  '1e400',
  '"x"',
  '{',
  DEEP_OBJECT.text.slice(0, 3990),
  '{"title":"a\\u0000b"}',
  '{"title":"\\ud800"}',
  '{"id":{"in":[]}}',
  '{"_id":{"eq":"00000000-0000-0000-0000-000000000000"}}',
  '{"title":{"constructor":"a"}}',
  '{"title":{"toString":1}}',
  '{"title":{"__proto__":"a"}}',
  '{"constructor":"a"}',
  '{"hasOwnProperty":{"eq":1}}',
];

export const SORT_STRINGS: string[] = [
  'title',
  '-title',
  'title:asc',
  'views:desc',
  '-views',
  'createdAt',
  'nope',
  '__proto__',
  'title;DROP TABLE x',
  'title:sideways',
  '-',
  ':',
  ',',
  'title,-views',
  'a'.repeat(200),
  'title:asc:desc',
  '"title"',
  '`title`',
  'meta.a',
  'title\u0000',
  'constructor',
  '-toString',
  'hasOwnProperty:desc',
  'valueOf,title',
  '__defineGetter__',
];

export const CSS_STRINGS: string[] = [
  'body { color: red; }',
  '@import url("https://evil.example/x.css");',
  'a { background: url(javascript:alert(1)) }',
  `${'a{'.repeat(5000)}${'}'.repeat(5000)}`,
  `${'@media screen{'.repeat(3000)}${'}'.repeat(3000)}`,
  '}}}{{{',
  '/* unterminated',
  'a { color: expression(alert(1)) }',
  '</style><script>alert(1)</script>',
  `a { ${'color: red; '.repeat(8000)} }`,
  '\u0000',
  'a{b:c\ud800}',
  `:root { --x: ${'var(--x) '.repeat(1000)} }`,
  `a { width: calc(${'('.repeat(2000)}1px${')'.repeat(2000)}) }`,
];

export const PRESET_JSON_STRINGS: string[] = [
  '{}',
  '{"name":"Fuzz","settings":{}}',
  '{"name":"Fuzz","version":1,"settings":{"colors":{"primary":"#ff0000"}}}',
  '[]',
  'null',
  '"x"',
  DEEP_OBJECT.text,
  DEEP_ARRAY.text,
  `{"name":"${'n'.repeat(5000)}"}`,
  '{"name":"a","name":"b"}',
  '{"__proto__":{"polluted":true}}',
  '{"name":"x","settings":{"colors":{"primary":1e400}}}',
  '{"name":"x\\u0000","settings":{"customCss":"a{b:c}"}}',
  '{"name":',
  '\ufeff{}',
];

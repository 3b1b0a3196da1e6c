/**
 * Worker side: records out of a JSON file, streamed token by token (stream-json), so a large array never
 * sits in memory at once. Nesting depth is counted from the tokens while a record is built: a record
 * deeper than the limit is dropped before it exists as an object, and the rest of the file goes on.
 */
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import Parser from 'stream-json/Parser.js';
import { scalarOf } from '../../lib/text/json-scalar-token.js';
import { DEFAULT_IMPORT_LIMITS, isLimitError, JsonTokenGuard } from '../../workers/import/limits.js';

/** Where the records are. */
export type RecordLayout =
  | { kind: 'array' } // [ {...}, {...} ]
  | { kind: 'path'; key: string } // { "<key>": [ {...} ] }
  | { kind: 'keyed' } // { "a": {...}, "b": {...} }
  | { kind: 'single' } // { ... } one record
  | { kind: 'none'; reason: string };

export interface JsonRecord {
  /** The record (an object), or null when it was refused. */
  value: Record<string, unknown> | null;
  /** 1-based position among the records. */
  index: number;
  /** The key of a keyed record. */
  key?: string;
  /** Why it was refused. */
  refused?: string;
}

interface Token {
  name: string;
  value?: unknown;
}

/** The file's tokens; long strings, keys and numbers also arrive in chunks, which the guard measures (callers skip them). */
const tokenStream = (path: string) => {
  const parser = new Parser({ streamValues: true, packValues: true });
  const done = pipeline(createReadStream(path), parser);
  return { parser, done };
};

/**
 * Where the records are, from a first look at the tokens that stops as soon as it knows: a root array;
 * the first root key holding an array whose first item is an object; else root objects keyed by id;
 * else the root object itself.
 */
export async function findLayout(path: string, maxTokenBytes = DEFAULT_IMPORT_LIMITS.maxLineBytes): Promise<RecordLayout> {
  const { parser, done } = tokenStream(path);
  const guard = new JsonTokenGuard(maxTokenBytes);
  done.catch(() => undefined);
  let depth = 0;
  let key: string | null = null;
  let pendingArrayKey: string | null = null;
  let objectValues = 0;
  let result: RecordLayout | null = null;
  try {
    for await (const token of parser as AsyncIterable<Token>) {
      if (guard.see(token)) continue;
      const { name } = token;
      if (depth === 0) {
        if (name === 'startArray') {
          result = { kind: 'array' };
          break;
        }
        if (name === 'startObject') {
          depth = 1;
          continue;
        }
        result = { kind: 'none', reason: 'The JSON document is a single value, not records.' };
        break;
      }
      if (depth === 1 && name === 'keyValue') {
        key = String(token.value);
        continue;
      }
      if (depth === 1 && name === 'endObject') break;
      if (depth === 2 && pendingArrayKey !== null) {
        if (name === 'startObject') {
          result = { kind: 'path', key: pendingArrayKey };
          break;
        }
        pendingArrayKey = null;
      }
      if (name === 'startObject' || name === 'startArray') {
        if (depth === 1 && name === 'startArray') pendingArrayKey = key;
        if (depth === 1 && name === 'startObject') objectValues++;
        depth++;
      } else if (name === 'endObject' || name === 'endArray') {
        depth--;
        if (depth === 1) pendingArrayKey = null;
      }
    }
  } catch (err) {
    if (isLimitError(err)) throw err;
    return { kind: 'none', reason: `The file is not valid JSON: ${(err as Error).message}` };
  } finally {
    parser.destroy();
  }
  return result ?? (objectValues > 0 ? { kind: 'keyed' } : { kind: 'single' });
}

/** Builds one value from tokens, refusing it once it nests deeper than the limit. */
class BoundedBuilder {
  private readonly stack: Array<Record<string, unknown> | unknown[]> = [];
  private key: string | null = null;
  private readonly keys: Array<string | null> = [];
  private overflow = 0;
  result: unknown = undefined;

  constructor(private readonly maxDepth: number) {}

  /** Set once the value went past the depth limit: it is consumed to its end but never built. */
  refused = false;

  /** Feeds a token; true once the value is complete. */
  push(token: Token): boolean {
    const { name } = token;
    if (this.overflow > 0) {
      if (name === 'startObject' || name === 'startArray') this.overflow++;
      else if (name === 'endObject' || name === 'endArray') this.overflow--;
      return false;
    }
    switch (name) {
      case 'startObject':
      case 'startArray': {
        if (this.stack.length >= this.maxDepth) {
          this.overflow = 1;
          this.refused = true;
          this.stack.forEach((c, i) => (this.stack[i] = Array.isArray(c) ? [] : {})); // drop what was built
          return false;
        }
        const container = name === 'startObject' ? {} : [];
        this.add(container);
        this.keys.push(this.key);
        this.stack.push(container);
        return false;
      }
      case 'endObject':
      case 'endArray': {
        const done = this.stack.pop();
        this.key = this.keys.pop() ?? null;
        if (this.stack.length === 0) {
          this.result = done;
          return true;
        }
        return false;
      }
      case 'keyValue':
        this.key = String(token.value);
        return false;
      default: {
        const scalar = scalarOf(token);
        return scalar ? this.scalar(scalar.value) : false;
      }
    }
  }

  private scalar(value: unknown): boolean {
    if (this.stack.length === 0) {
      this.result = value;
      return true;
    }
    this.add(value);
    return false;
  }

  private add(value: unknown): void {
    if (this.refused) return;
    const top = this.stack[this.stack.length - 1];
    if (!top) return;
    if (Array.isArray(top)) top.push(value);
    else if (this.key !== null && this.key !== '__proto__') top[this.key] = value;
  }
}

/**
 * The records of the layout, one at a time. `maxDepth` counts the record itself as level 1.
 * Values next to the records (other root keys) are reported through `onIgnored` once.
 */
export async function* readJsonRecords(
  path: string,
  layout: RecordLayout,
  maxDepth: number,
  maxTokenBytes: number,
  onIgnored: (keys: string[]) => void,
): AsyncGenerator<JsonRecord> {
  if (layout.kind === 'none') return;
  const { parser, done } = tokenStream(path);
  const guard = new JsonTokenGuard(maxTokenBytes);
  let failure: unknown;
  done.catch((err) => (failure = err));
  const recordLevel = layout.kind === 'array' || layout.kind === 'keyed' ? 1 : layout.kind === 'path' ? 2 : 0;
  let depth = 0;
  let rootKey: string | null = null;
  let inRecords = layout.kind !== 'path';
  const ignored = new Set<string>();
  let builder: BoundedBuilder | null = null;
  let index = 0;
  let key: string | undefined;
  try {
    for await (const token of parser as AsyncIterable<Token>) {
      if (guard.see(token)) continue;
      if (builder) {
        if (!builder.push(token)) continue;
        index++;
        const value = builder.result;
        if (builder.refused) yield { value: null, index, key, refused: `nested deeper than ${maxDepth} levels` };
        else if (value === null || typeof value !== 'object' || Array.isArray(value))
          yield { value: null, index, key, refused: 'not an object' };
        else yield { value: value as Record<string, unknown>, index, key };
        builder = null;
        continue;
      }
      const { name } = token;
      if (depth === 1 && name === 'keyValue') {
        rootKey = String(token.value);
        if (layout.kind === 'path') inRecords = false;
        continue;
      }
      const opens = name === 'startObject' || name === 'startArray';
      const isValue = opens || name.endsWith('Value');
      if (isValue && depth === recordLevel && inRecords && (layout.kind !== 'keyed' || name === 'startObject')) {
        builder = new BoundedBuilder(maxDepth);
        key = layout.kind === 'keyed' ? (rootKey ?? undefined) : undefined;
        if (builder.push(token)) {
          index++; // a scalar where a record should be
          yield { value: null, index, key, refused: 'not an object' };
          builder = null;
        }
        continue;
      }
      if (isValue && depth === 1 && layout.kind !== 'array' && rootKey !== null) {
        if (layout.kind === 'path' && rootKey === layout.key && name === 'startArray') inRecords = true;
        else if (layout.kind !== 'single') ignored.add(rootKey);
      }
      if (opens) depth++;
      else if (name === 'endObject' || name === 'endArray') {
        depth--;
        if (layout.kind === 'path' && depth === 1) inRecords = false;
      }
    }
  } finally {
    parser.destroy();
    if (ignored.size) onIgnored([...ignored]);
  }
  await done.catch(() => undefined);
  if (failure) throw failure;
}

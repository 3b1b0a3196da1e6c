/**
 * Streams a JSON file token by token (stream-json) and assembles only the values a caller selects by
 * path (`['data', 3]`), one at a time, so a large export never sits in memory whole. A selected value
 * nested deeper than `maxDepth` is skipped (reported through onTooDeep) before it is built.
 * Worker-side helper: no kernel imports.
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import type { Transform } from 'node:stream';
import iconv from 'iconv-lite';
import { scalarOf } from '../../lib/text/json-scalar-token.js';
import { DEFAULT_IMPORT_LIMITS, isLimitError, JsonTokenGuard } from '../../workers/import/limits.js';

const require = createRequire(import.meta.url);
const { parser: makeParser } = require('stream-json/Parser.js') as { parser: (options?: Record<string, unknown>) => Transform };

export type JsonPath = Array<string | number>;
interface Token {
  name: string;
  value?: string;
}

export interface WalkOptions {
  /** A label for a value that starts at `path` (its first token given), or null to pass over it. */
  select(path: JsonPath, token: Token): string | null;
  /** Called with each selected value once it is complete; the walk waits for it. */
  onValue(label: string, value: unknown, path: JsonPath): Promise<void> | void;
  onTooDeep?(label: string, path: JsonPath): void;
  maxDepth: number;
  /** The file's text encoding (from the profile); UTF-8 by default. A byte-order mark is dropped. */
  encoding?: string;
  /** Longest string, key or number (bytes) before the walk is refused with an ImportLimitError (default 1 MiB). */
  maxTokenBytes?: number;
}

export interface WalkResult {
  /** Keys of the root object, in order. */
  topKeys: string[];
  rootKind: 'object' | 'array' | 'scalar' | null;
  /** A syntax error (what was read before it has been delivered). */
  error?: string;
}

const VALUE_START = new Set(['startObject', 'startArray', 'stringValue', 'numberValue', 'nullValue', 'trueValue', 'falseValue']);

/** Builds one value from tokens. */
class Builder {
  private readonly stack: Array<{ container: Record<string, unknown> | unknown[]; key: string | null }> = [];
  value: unknown;
  done = false;
  get depth(): number {
    return this.stack.length;
  }
  push(token: Token): void {
    switch (token.name) {
      case 'startObject':
        return this.open({});
      case 'startArray':
        return this.open([]);
      case 'endObject':
      case 'endArray': {
        const { container } = this.stack.pop()!;
        return this.add(container);
      }
      case 'keyValue':
        this.stack[this.stack.length - 1].key = token.value!;
        return;
      default: {
        const scalar = scalarOf(token);
        if (scalar) this.add(scalar.value);
      }
    }
  }
  private open(container: Record<string, unknown> | unknown[]): void {
    this.stack.push({ container, key: null });
  }
  private add(value: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.value = value;
      this.done = true;
    } else if (Array.isArray(top.container)) top.container.push(value);
    else if (top.key !== null && top.key !== '__proto__') top.container[top.key] = value;
  }
}

export async function walkJson(path: string, options: WalkOptions): Promise<WalkResult> {
  const result: WalkResult = { topKeys: [], rootKind: null };
  // Where the walk is: one slot per open container, holding the current key or index.
  const stack: JsonPath = [];
  let builder: Builder | null = null;
  let label = '';
  let valuePath: JsonPath = [];
  let skipping = 0; // > 0: inside a selected value that is too deep, counting open containers
  const encoding = options.encoding && iconv.encodingExists(options.encoding) ? options.encoding : 'utf-8';
  // Decoded to text first: this drops a BOM and reads UTF-16 or a legacy code page as well as UTF-8.
  const source = createReadStream(path);
  const text = source.pipe(iconv.decodeStream(encoding, { stripBOM: true }));
  // Long values arrive in chunks (streamValues), so one past the limit is refused before it is whole.
  const tokens = text.pipe(makeParser({ packValues: true, streamValues: true }));
  const guard = new JsonTokenGuard(options.maxTokenBytes ?? DEFAULT_IMPORT_LIMITS.maxLineBytes);
  source.on('error', (err) => tokens.destroy(err));
  text.on('error', (err) => tokens.destroy(err));
  try {
    for await (const token of tokens as AsyncIterable<Token>) {
      if (guard.see(token)) continue;
      const name = token.name;
      if (VALUE_START.has(name)) {
        if (stack.length === 0 && result.rootKind === null) {
          result.rootKind = name === 'startObject' ? 'object' : name === 'startArray' ? 'array' : 'scalar';
        }
        const top = stack.length - 1;
        if (top >= 0 && typeof stack[top] === 'number') (stack[top] as number)++;
      }
      if (name === 'keyValue') {
        stack[stack.length - 1] = token.value!;
        if (stack.length === 1) result.topKeys.push(token.value!);
      }

      if (skipping > 0) {
        if (name === 'startObject' || name === 'startArray') skipping++;
        else if (name === 'endObject' || name === 'endArray') skipping--;
      } else if (builder) {
        builder.push(token);
        if (builder.depth > options.maxDepth) {
          // The containers of the abandoned value still open: their ends are passed over.
          skipping = builder.depth;
          builder = null;
          options.onTooDeep?.(label, valuePath);
        } else if (builder.done) {
          const value = builder.value;
          builder = null;
          await options.onValue(label, value, valuePath);
        }
      } else if (VALUE_START.has(name)) {
        const chosen = options.select([...stack], token);
        if (chosen !== null) {
          label = chosen;
          valuePath = [...stack];
          builder = new Builder();
          builder.push(token);
          if (builder.done) {
            const value = builder.value;
            builder = null;
            await options.onValue(label, value, valuePath);
          }
        }
      }

      if (name === 'startObject') stack.push('');
      else if (name === 'startArray') stack.push(-1);
      else if (name === 'endObject' || name === 'endArray') stack.pop();
    }
  } catch (err) {
    if (isLimitError(err)) throw err;
    result.error = (err as Error).message;
  } finally {
    source.destroy();
    tokens.destroy();
  }
  return result;
}

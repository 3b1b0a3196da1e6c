/**
 * A safe reader for PHP `serialize()` output as WordPress stores it in meta values. Only plain data is
 * decoded (strings, integers, floats, booleans, null, arrays); objects, references and custom classes
 * are never instantiated: the value is then left as the original string. Worker-side, no kernel imports.
 */

export type PhpValue = string | number | boolean | null | PhpValue[] | { [key: string]: PhpValue };

class Unreadable extends Error {}

/** Looks like PHP serialized data (cheap test before decoding). */
export function looksSerialized(value: string): boolean {
  return /^(?:a:\d+:\{|s:\d+:"|i:-?\d+;|d:[-+0-9.eEINFA]+;|b:[01];|N;)/.test(value) && /[;}]\s*$/.test(value);
}

/** A cursor over the bytes of one serialized value (string lengths are UTF-8 byte counts). */
class PhpReader {
  pos = 0;

  constructor(
    readonly bytes: Buffer,
    private readonly maxDepth: number,
  ) {}

  expect(char: string): void {
    if (this.bytes[this.pos] !== char.charCodeAt(0)) throw new Unreadable();
    this.pos++;
  }

  readUntil(char: string): string {
    const end = this.bytes.indexOf(char.charCodeAt(0), this.pos);
    if (end < 0) throw new Unreadable();
    const text = this.bytes.toString('latin1', this.pos, end);
    this.pos = end + 1;
    return text;
  }

  readInt(terminator: string): number {
    const text = this.readUntil(terminator);
    if (!/^-?\d{1,15}$/.test(text)) throw new Unreadable();
    return Number(text);
  }

  readValue(depth: number): PhpValue {
    const type = String.fromCharCode(this.bytes[this.pos] ?? 0);
    this.pos++;
    if (type === 'N') {
      this.expect(';');
      return null;
    }
    if (type === 'a') return this.readArray(depth);
    this.expect(':');
    switch (type) {
      case 'b': {
        const flag = this.readUntil(';');
        if (flag !== '0' && flag !== '1') throw new Unreadable();
        return flag === '1';
      }
      case 'i':
        return this.readInt(';');
      case 'd': {
        const num = Number(this.readUntil(';'));
        if (!Number.isFinite(num)) throw new Unreadable();
        return num;
      }
      case 's':
        return this.readString();
      default:
        // O: (objects), C: (custom serialisation), r:/R: (references) and anything else: not decoded.
        throw new Unreadable();
    }
  }

  private readString(): string {
    const length = this.readInt(':');
    this.expect('"');
    if (length < 0 || this.pos + length > this.bytes.length) throw new Unreadable();
    const text = this.bytes.toString('utf8', this.pos, this.pos + length);
    this.pos += length;
    this.expect('"');
    this.expect(';');
    return text;
  }

  private readArray(depth: number): PhpValue {
    if (depth >= this.maxDepth) throw new Unreadable();
    this.expect(':');
    const count = this.readInt(':');
    this.expect('{');
    const entries: Array<[string | number, PhpValue]> = [];
    for (let n = 0; n < count; n++) {
      const key = this.readValue(depth + 1);
      if (typeof key !== 'string' && typeof key !== 'number') throw new Unreadable();
      entries.push([key, this.readValue(depth + 1)]);
    }
    this.expect('}');
    const isList = entries.every(([key], index) => key === index);
    // fromEntries defines own properties, so a `__proto__` key stays a plain key.
    return isList ? entries.map(([, v]) => v) : Object.fromEntries(entries.map(([k, v]) => [String(k), v]));
  }
}

/**
 * Decodes `value` when it is PHP-serialized plain data nested at most `maxDepth` levels; otherwise
 * `undefined` (the caller keeps the string). String lengths are UTF-8 byte counts, as PHP writes them.
 */
export function phpUnserialize(value: string, maxDepth = 16): PhpValue | undefined {
  if (!looksSerialized(value)) return undefined;
  const reader = new PhpReader(Buffer.from(value.trimEnd(), 'utf8'), maxDepth);
  try {
    const result = reader.readValue(0);
    return reader.pos === reader.bytes.length ? result : undefined;
  } catch (err) {
    if (err instanceof Unreadable) return undefined;
    throw err;
  }
}

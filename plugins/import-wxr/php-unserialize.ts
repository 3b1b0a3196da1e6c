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

/**
 * Decodes `value` when it is PHP-serialized plain data nested at most `maxDepth` levels; otherwise
 * `undefined` (the caller keeps the string). String lengths are UTF-8 byte counts, as PHP writes them.
 */
export function phpUnserialize(value: string, maxDepth = 16): PhpValue | undefined {
  if (!looksSerialized(value)) return undefined;
  const bytes = Buffer.from(value.trimEnd(), 'utf8');
  let pos = 0;

  const expect = (char: string): void => {
    if (bytes[pos] !== char.charCodeAt(0)) throw new Unreadable();
    pos++;
  };
  const readUntil = (char: string): string => {
    const end = bytes.indexOf(char.charCodeAt(0), pos);
    if (end < 0) throw new Unreadable();
    const text = bytes.toString('latin1', pos, end);
    pos = end + 1;
    return text;
  };
  const readInt = (terminator: string): number => {
    const text = readUntil(terminator);
    if (!/^-?\d{1,15}$/.test(text)) throw new Unreadable();
    return Number(text);
  };

  const readValue = (depth: number): PhpValue => {
    const type = String.fromCharCode(bytes[pos] ?? 0);
    pos++;
    switch (type) {
      case 'N':
        expect(';');
        return null;
      case 'b': {
        expect(':');
        const flag = readUntil(';');
        if (flag !== '0' && flag !== '1') throw new Unreadable();
        return flag === '1';
      }
      case 'i':
        expect(':');
        return readInt(';');
      case 'd': {
        expect(':');
        const num = Number(readUntil(';'));
        if (!Number.isFinite(num)) throw new Unreadable();
        return num;
      }
      case 's': {
        expect(':');
        const length = readInt(':');
        expect('"');
        if (length < 0 || pos + length > bytes.length) throw new Unreadable();
        const text = bytes.toString('utf8', pos, pos + length);
        pos += length;
        expect('"');
        expect(';');
        return text;
      }
      case 'a': {
        if (depth >= maxDepth) throw new Unreadable();
        expect(':');
        const count = readInt(':');
        expect('{');
        const entries: Array<[string | number, PhpValue]> = [];
        for (let n = 0; n < count; n++) {
          const key = readValue(depth + 1);
          if (typeof key !== 'string' && typeof key !== 'number') throw new Unreadable();
          entries.push([key, readValue(depth + 1)]);
        }
        expect('}');
        const isList = entries.every(([key], index) => key === index);
        // fromEntries defines own properties, so a `__proto__` key stays a plain key.
        return isList ? entries.map(([, v]) => v) : Object.fromEntries(entries.map(([k, v]) => [String(k), v]));
      }
      default:
        // O: (objects), C: (custom serialisation), r:/R: (references) and anything else: not decoded.
        throw new Unreadable();
    }
  };

  try {
    const result = readValue(0);
    return pos === bytes.length ? result : undefined;
  } catch (err) {
    if (err instanceof Unreadable) return undefined;
    throw err;
  }
}

/** A token of stream-json's parser (packed values: a value token carries its whole text). */
export interface JsonToken {
  name: string;
  value?: unknown;
}

const SCALARS = new Map<string, (text: unknown) => unknown>([
  ['stringValue', (text) => text],
  ['numberValue', (text) => Number(text)],
  ['nullValue', () => null],
  ['trueValue', () => true],
  ['falseValue', () => false],
]);

/**
 * The value of a scalar token (string, number, null, true, false), as `{ value }`; undefined for any other
 * token. Shared by the JSON value builders of the CMS importers and of the tabular JSON reader.
 */
export function scalarOf(token: JsonToken): { value: unknown } | undefined {
  const read = SCALARS.get(token.name);
  return read ? { value: read(token.value) } : undefined;
}

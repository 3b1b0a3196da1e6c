/**
 * A copy of `text` that shares no memory with the string it was cut from. A streaming parser's tokens are slices of
 * the chunk they were read from, and V8 keeps the whole chunk (128 KiB of a file) alive as long as one slice of it
 * lives: a parser that remembers every record's id (to find duplicates) kept the whole file in memory that way. Keys
 * kept for the length of an import go through this. UTF-16 both ways: exact for every string, lone surrogates too.
 */
export const detached = (text: string): string => Buffer.from(text, 'utf16le').toString('utf16le');

/**
 * A URL- and path-safe slug of `text`: accents dropped, lower case, ASCII letters and digits joined by one '-',
 * at most `maxLength` characters, never starting or ending with '-' (may be empty).
 */
export function asciiSlug(text: string, maxLength: number): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '');
}

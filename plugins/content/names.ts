/**
 * The naming rules of collections and fields: the one place the server's schemas (collection-schema.ts,
 * field-types.ts) and the admin UI's schema editor take them from, so the editor can say the rule while
 * someone types instead of after the server refuses. No imports: the admin UI bundles this same file.
 */

/** Longest name of a collection or a field. */
export const NAME_MAX = 48;

/** A collection name: lower-case letters, digits and `_`, starting with a letter, at most 48 characters. */
export const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,47}$/;
/** Path segments the entry routes use for themselves. */
export const RESERVED_COLLECTION_NAMES: ReadonlySet<string> = new Set(['presets', 'schema', 'batch']);
export const COLLECTION_NAME_RULE =
  'may only contain lower-case letters (a-z), digits and _, must start with a letter and be at most 48 characters long';

/** A field name: letters and digits, starting with a letter, at most 48 characters (`publishedAt`). */
export const FIELD_NAME = /^[a-zA-Z][a-zA-Z0-9]{0,47}$/;
/** The one system field name outside the rule: the importers' scaffold records an entry's origin in it. */
export const SOURCE_IMPORT_FIELD = '_source_import';
export const FIELD_NAME_RULE =
  'may only contain letters and digits (no spaces, _ or -), must start with a letter and be at most 48 characters long';

/** Names the entry itself uses; a field may not take them (compared without case). */
export const RESERVED_FIELD_NAMES: ReadonlySet<string> = new Set([
  '_id',
  'id',
  'slug',
  'status',
  'syncid',
  'createdat',
  'updatedat',
  'createdby',
  'updatedby',
  'version',
  'tenantid',
  'tenant_id',
]);

/** A character in words: "a space", "_", "-". */
const characterName = (c: string): string => (/\s/.test(c) ? 'a space' : `"${c}"`);

export const isFieldNameFormat = (name: string): boolean => FIELD_NAME.test(name) || name === SOURCE_IMPORT_FIELD;

/**
 * What is wrong with a field name, in words ("" when nothing is): its form, a reserved name, or a name
 * another field of the list already has (`others`, compared without case as the server does).
 */
export function fieldNameProblem(name: string, others: readonly string[] = []): string {
  const n = name.trim();
  if (!n) return 'Give the field a name.';
  if (n.length > NAME_MAX) return `The name is ${n.length} characters long; it may be at most ${NAME_MAX}.`;
  if (!isFieldNameFormat(n)) {
    if (!/^[a-zA-Z]/.test(n)) return 'The name must start with a letter (for example publishedAt).';
    return `The name cannot contain ${characterName(n.match(/[^a-zA-Z0-9]/)![0])}: only letters and digits (for example publishedAt).`;
  }
  if (RESERVED_FIELD_NAMES.has(n.toLowerCase())) return `"${n}" is a name every entry already has; choose another.`;
  if (others.some((o) => o.trim().toLowerCase() === n.toLowerCase()))
    return `Another field is already called "${n}" (names are compared without case).`;
  return '';
}

/** What is wrong with a collection name, in words ("" when nothing is). */
export function collectionNameProblem(name: string): string {
  const n = name.trim();
  if (!n) return 'Give the collection a name.';
  if (n.length > NAME_MAX) return `The name is ${n.length} characters long; it may be at most ${NAME_MAX}.`;
  if (!COLLECTION_NAME.test(n)) {
    if (!/^[a-z]/.test(n)) return 'The name must start with a lower-case letter (for example blog_posts).';
    const bad = n.match(/[^a-z0-9_]/)![0];
    if (/[A-Z]/.test(bad)) return 'The name cannot contain capital letters: use lower-case ones (for example blog_posts).';
    return `The name cannot contain ${characterName(bad)}: only lower-case letters, digits and _ (for example blog_posts).`;
  }
  if (RESERVED_COLLECTION_NAMES.has(n)) return `"${n}" is used by the API itself; choose another name.`;
  return '';
}

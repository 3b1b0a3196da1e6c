import type { CollectionDefinition as CollectionLike } from '../content/public.js';

/** blog_post -> BlogPost */
export const pascal = (s: string) =>
  s
    .split('_')
    .filter(Boolean)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
/** blog_post -> blogPost */
export const camel = (s: string) => {
  const p = pascal(s);
  return p.charAt(0).toLowerCase() + p.slice(1);
};

/** The GraphQL names of one collection (collection `posts`, singular `post`). */
export interface CollectionNames {
  collection: string;
  /** Post */
  type: string;
  /** PostList */
  listType: string;
  /** PostInput */
  inputType: string;
  /** posts(page, limit, ...) */
  list: string;
  /** post(_id) */
  one: string;
  create: string;
  update: string;
  delete: string;
  setStatus: string;
  added: string;
  updated: string;
  deleted: string;
}

export function namesFor(c: CollectionLike): CollectionNames {
  const type = pascal(c.singular);
  const one = camel(c.singular);
  let list = camel(c.name);
  if (list === one) list = `${one}List`;
  return {
    collection: c.name,
    type,
    listType: `${type}List`,
    inputType: `${type}Input`,
    list,
    one,
    create: `create${type}`,
    update: `update${type}`,
    delete: `delete${type}`,
    setStatus: `set${type}Status`,
    added: `${one}Added`,
    updated: `${one}Updated`,
    deleted: `${one}Deleted`,
  };
}

/** Names the fixed part of the schema uses. */
export const FIXED_TYPES = [
  'Query',
  'Mutation',
  'Subscription',
  'String',
  'Int',
  'Float',
  'Boolean',
  'ID',
  'JSON',
  'EntryStatus',
  'CollectionInfo',
  'CollectionFieldInfo',
  'Media',
  'User',
];
export const FIXED_ROOT_FIELDS = ['collections', 'mediaUploaded', 'userCreated', 'userUpdated', 'userDeleted'];

/**
 * The names of every collection, in name order; a collection whose type or root-field names clash
 * with one taken before (two collections with one singular, `query` as a singular...) is left out
 * of the schema, and reported, rather than breaking it.
 */
export function planNames(collections: CollectionLike[]): {
  included: CollectionNames[];
  clashes: Array<{ collection: string; name: string }>;
} {
  const types = new Set(FIXED_TYPES);
  const fields = new Set(FIXED_ROOT_FIELDS);
  const included: CollectionNames[] = [];
  const clashes: Array<{ collection: string; name: string }> = [];
  for (const c of [...collections].sort((a, b) => a.name.localeCompare(b.name))) {
    const n = namesFor(c);
    const ownTypes = [n.type, n.listType, n.inputType];
    const ownFields = [n.list, n.one, n.create, n.update, n.delete, n.setStatus, n.added, n.updated, n.deleted];
    const clash =
      ownTypes.find((t) => types.has(t)) ??
      ownFields.find((f) => fields.has(f)) ??
      (new Set(ownFields).size < ownFields.length ? n.list : undefined);
    if (clash) {
      clashes.push({ collection: c.name, name: clash });
      continue;
    }
    for (const t of ownTypes) types.add(t);
    for (const f of ownFields) fields.add(f);
    included.push(n);
  }
  return { included, clashes };
}

/** Type names taken by the collections, for the select enums that come after. */
export function takenTypes(included: CollectionNames[]): Set<string> {
  return new Set([...FIXED_TYPES, ...included.flatMap((n) => [n.type, n.listType, n.inputType])]);
}

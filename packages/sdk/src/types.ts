// The types of content: how the type map a site generates (GET /api/types.ts, or `cms types FILE`) turns into the
// entries a call answers. Types only: nothing here reaches the JavaScript.
//
// The generated file has `Collections` (each collection's entry type, relations and media as ids) and `CmsTypes`
// ({collections: Collections, populated: {<collection>: <its relation and media fields, populated>}}). Pass either
// to createClient: with CmsTypes, `populate` changes the type of the fields it names; with Collections alone they
// keep the id type. Without a type map every collection answers ApiSchemas['Entry'] (the OpenAPI document's).
import type { ApiSchemas } from './api-types.gen.js';

export type EntryStatus = 'draft' | 'published' | 'archived';

/** What entry answers may carry beside the fields (locales, review stage, working draft). */
export interface EntryMeta {
  /** The locale the values are in. */
  _locale?: string;
  /** The locales in which the entry has a version. */
  _locales?: string[];
  /** Localized fields whose value came from the fallback chain. */
  _fallbackFields?: string[];
  /** The review stage (collections in a workflow). */
  _stage?: string;
  /** Whether a working draft exists (collections with drafts; writers only). */
  hasDraft?: boolean;
}

/** The shape a type map has: the generated `CmsTypes`, or a map of collection names to entry types. */
export type TypeMap = object;

/** The map when none is given: any collection name, entries as the OpenAPI document describes them. */
export interface UntypedMap {
  collections: Record<string, ApiSchemas['Entry']>;
  populated: Record<string, Record<string, unknown>>;
}

/** The collections of a type map (CmsTypes['collections'], or the map itself). */
export type CollectionsOf<T> = T extends { collections: infer C extends object } ? C : T;
/** The populated relation and media fields of a type map, by collection (none for a bare Collections map). */
type PopulatedMapOf<T> = T extends { populated: infer P extends object } ? P : {};

export type CollectionName<T> = keyof CollectionsOf<T> & string;
/** The entry type of collection N, as the API answers it without populate. */
export type EntryOf<T, N extends CollectionName<T>> = CollectionsOf<T>[N] & EntryMeta;
/** Collection N's relation and media fields with their populated types. */
export type PopulatedOf<T, N extends CollectionName<T>> = N extends keyof PopulatedMapOf<T> ? PopulatedMapOf<T>[N] : {};

/**
 * A populate path: a relation or media field, a dotted path through one (`author.avatar`), or `*` (every one).
 * None for a collection without such fields, nor with a bare Collections map (it cannot type what populate answers).
 */
export type PopulatePath<T, N extends CollectionName<T>> = [keyof PopulatedOf<T, N>] extends [never]
  ? never
  : (keyof PopulatedOf<T, N> & string) | `${keyof PopulatedOf<T, N> & string}.${string}` | '*';

/** A field that `fields` may name. */
export type FieldName<T, N extends CollectionName<T>> = keyof CollectionsOf<T>[N] & string;

type Head<P> = P extends `${infer H}.${string}` ? H : P;

/** The entry with the fields named by `populate` (first path segment) typed as populated. */
export type WithPopulated<E, Pop, P> = [P] extends [never]
  ? E
  : string extends keyof Pop
    ? E // untyped: nothing to swap
    : '*' extends P
      ? Omit<E, keyof Pop> & Pop
      : Omit<E, Head<P> & keyof Pop> & Pick<Pop, Head<P> & keyof Pop>;

/** The entry reduced to the fields named by `fields` (with `_id` and the meta keys, which are always answered). */
export type WithFields<E, F> = [F] extends [never] ? E : string extends F ? E : Pick<E, (F | '_id') & keyof E> & EntryMeta;

/** One object type instead of an intersection of Picks and Omits (what an editor shows on hover). */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** What a read answers for collection N read with populate P and fields F. */
export type EntryShape<T, N extends CollectionName<T>, P = never, F = never> = Simplify<
  WithFields<WithPopulated<EntryOf<T, N>, PopulatedOf<T, N>, P>, F>
>;

type Scalar = string | number | boolean | null;
/** The value a filter compares a field with: an id for relations and media, the item for lists. */
type Comparable<V> = V extends readonly (infer I)[] ? Comparable<I> : V extends object ? string : Exclude<V, undefined>;
/** A condition on one field: a value (equality) or operators. */
export type Condition<V> =
  | V
  | {
      eq?: V;
      ne?: V;
      gt?: V;
      gte?: V;
      lt?: V;
      lte?: V;
      in?: V[];
      nin?: V[];
      contains?: string;
      startsWith?: string;
      /** true: the field is empty; false: it has a value. */
      null?: boolean;
      /** Many-relations and multiple selects: holds this value. */
      has?: V;
    };

/**
 * A list filter (sent as the `filter` JSON): conditions on the fields, relation paths up to two levels
 * (`'author.name': {startsWith: 'Ada'}`), grouped with $or, $and and $not.
 */
export type Filter<E> = { [K in keyof E & string]?: Condition<Comparable<E[K]>> } & {
  [path: `${string}.${string}`]: Condition<Scalar> | undefined;
} & {
  $or?: Filter<E>[];
  $and?: Filter<E>[];
  $not?: Filter<E>;
};

/** The keys every entry has that a write does not set (slug and status may be given). */
type SystemKey = '_id' | 'syncId' | 'version' | 'createdAt' | 'updatedAt' | 'createdBy' | 'updatedBy' | keyof EntryMeta;
type Writable<E> = Exclude<keyof E, SystemKey | 'slug' | 'status'>;
type RequiredKey<E> = {
  [K in Writable<E>]-?: string extends K ? never : null extends E[K] ? never : E[K] extends readonly unknown[] ? never : K;
}[Writable<E>];

/** The body of a create: the collection's required fields, the others optional (relations and media as ids). */
export type CreateInput<E> = { [K in RequiredKey<E>]: E[K] } & { [K in Exclude<Writable<E>, RequiredKey<E>>]?: E[K] } & {
  slug?: string;
  status?: EntryStatus;
};

/** The body of an update: the fields to change. */
export type UpdateInput<E> = { [K in Writable<E>]?: E[K] } & { slug?: string };

/** One page of a list. */
export interface Page<E> {
  items: E[];
  total: number;
  /** null for a cursor page (`after`, `before`). */
  page: number | null;
  limit: number;
  /** Cursor pages: the next page's cursor (null at the end) and the previous one's (null at the start). */
  nextCursor?: string | null;
  prevCursor?: string | null;
}

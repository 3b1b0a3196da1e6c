import { z } from 'zod';
import { ValidationError } from '../../kernel/sdk.js';
import { fieldSchema, isList, type FieldDefinition } from './field-types.js';
import { COLLECTION_NAME, COLLECTION_NAME_RULE, RESERVED_COLLECTION_NAMES as RESERVED_NAMES } from './names.js';

export { COLLECTION_NAME };

/** The placeholders a preview URL may hold (API decisions, issue 37 item 5). */
export const PREVIEW_PLACEHOLDERS = ['id', 'slug', 'locale', 'token'] as const;

/**
 * A collection's live preview address: an absolute http(s) URL template of the site's page for an entry, with
 * `{id}`, `{slug}`, `{locale}` and `{token}` (a short-lived preview token the page exchanges for the entry as it is now,
 * drafts included, at GET /api/preview/{token}). null removes it.
 */
export const previewUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => [...v.matchAll(/\{([^}]*)\}/g)].every((m) => (PREVIEW_PLACEHOLDERS as readonly string[]).includes(m[1]!)), {
    message: `placeholders are ${PREVIEW_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
  })
  .refine((v) => {
    try {
      const u = new URL(v.replace(/\{[a-z]+\}/g, 'x'));
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password;
    } catch {
      return false;
    }
  }, 'an absolute http or https URL without credentials')
  .nullable();

const fields = z
  .array(fieldSchema)
  .max(200)
  .superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    list.forEach((f, i) => {
      const key = f.name.toLowerCase();
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `'${f.name}' is defined twice (names are compared without case)` });
      seen.set(key, i);
    });
  });

/**
 * `search: { fields }`: the fields full-text search looks in (text, rich text, Markdown, select, email, url, color; not
 * lists), at most 50 names; null (PATCH) goes back to the default, every such field.
 */
export const searchSchema = z
  .object({ fields: z.array(z.string().min(1).max(64)).max(50) })
  .strict()
  .nullable()
  .describe('The fields full-text search looks in (docs/features/search.md); absent or null: every text-like field');

const SEARCHABLE = new Set(['text', 'richtext', 'markdown', 'select', 'email', 'url', 'color']);

/** The names in `search.fields` that are no searchable field of the collection (text-like, not a list), by index. */
export function searchFieldProblems(search: { fields: string[] } | null | undefined, list: FieldDefinition[]): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  search?.fields.forEach((n, i) => {
    const f = list.find((x) => x.name === n);
    if (!f || !SEARCHABLE.has(f.type) || isList(f)) out.push([i, `'${n}' is not a text, rich text, Markdown or other text-like field`]);
  });
  return out;
}

/** 400 VALIDATION_ERROR naming `body.search.fields.<i>` for a name that is no searchable field (a schema change). */
export function assertSearchFields(search: { fields: string[] } | null | undefined, list: FieldDefinition[]): void {
  const problems = searchFieldProblems(search, list);
  if (problems.length)
    throw new ValidationError(
      'Invalid search fields',
      problems.map(([i, message]) => ({ path: `body.search.fields.${i}`, message })),
    );
}

function checkSearchFields(search: { fields: string[] } | null | undefined, list: FieldDefinition[], ctx: z.RefinementCtx): void {
  for (const [i, message] of searchFieldProblems(search, list)) ctx.addIssue({ code: 'custom', path: ['search', 'fields', i], message });
}

/** POST /api/collections: the decisions' body, plus the field options this CMS adds. */
export const collectionInput = z
  .object({
    name: z
      .string()
      .regex(COLLECTION_NAME, `the name ${COLLECTION_NAME_RULE}`)
      .refine((n) => !RESERVED_NAMES.has(n), 'this name is reserved'),
    label: z.string().min(1).max(191).optional(),
    singular: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,47}$/, 'lower-case letters, digits and _')
      .optional(),
    fields,
    /** One entry per tenant, read and written at .../single (API decisions, "Content model v2"). */
    singleton: z.boolean().optional(),
    previewUrl: previewUrlSchema.optional(),
    /** Working drafts (docs/features/drafts.md): a published entry may have one draft beside it. */
    drafts: z.boolean().optional(),
    search: searchSchema.optional(),
  })
  .strict()
  .superRefine((c, ctx) => checkSearchFields(c.search, c.fields, ctx));
export type CollectionInput = z.output<typeof collectionInput>;

/** PATCH .../schema: the whole new field list (fields kept by name keep their data). */
export const collectionPatch = z
  .object({
    label: z.string().min(1).max(191).optional(),
    singular: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,47}$/)
      .optional(),
    fields: fields.optional(),
    previewUrl: previewUrlSchema.optional(),
    drafts: z.boolean().optional(),
    search: searchSchema.optional(),
  })
  .strict();
export type CollectionPatch = z.output<typeof collectionPatch>;

export interface CollectionDefinition {
  name: string;
  label: string;
  singular: string;
  fields: FieldDefinition[];
  version: number;
  /** Set at creation, never changed: the collection holds at most one entry per tenant. */
  singleton?: boolean;
  /** The live preview address template (previewUrlSchema). */
  previewUrl?: string;
  /** Working drafts beside published entries (entry-drafts.ts). */
  drafts?: boolean;
  /** The fields full-text search looks in (docs/features/search.md); absent: every text-like field. */
  search?: { fields: string[] };
}

/** What content_collections.options holds. */
export interface CollectionOptions {
  singleton?: boolean;
  previewUrl?: string;
  drafts?: boolean;
  search?: { fields: string[] };
}

/** The decisions' default: the name without a trailing s (a name without one gets `_item`, so the two differ). */
export const defaultSingular = (name: string) => (name.length > 1 && name.endsWith('s') ? name.slice(0, -1) : `${name}_item`);
export const defaultLabel = (name: string) => name.charAt(0).toUpperCase() + name.slice(1).replace(/_/g, ' ');

/** content_collections.options as stored: only the options set, null when none. */
export const optionsText = (o: CollectionOptions): string | null => {
  const set = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== false && v !== null));
  return Object.keys(set).length ? JSON.stringify(set) : null;
};

/** The options column after a PATCH that sets previewUrl or drafts (nothing when it sets neither). */
export const patchedOptions = (o: CollectionOptions, { previewUrl: url, drafts, search }: CollectionPatch) =>
  url === undefined && drafts === undefined && search === undefined
    ? {}
    : {
        options: optionsText({
          ...o,
          ...(url !== undefined ? { previewUrl: url ?? undefined } : {}),
          drafts: drafts ?? o.drafts,
          ...(search !== undefined ? { search: search ?? undefined } : {}),
        }),
      };

/** A collection as its routes answer it: only the options that are set. */
export const describeCollection = (c: CollectionDefinition) => ({
  name: c.name,
  label: c.label,
  singular: c.singular,
  fields: c.fields,
  version: c.version,
  ...(c.singleton ? { singleton: true as const } : {}),
  ...(c.previewUrl ? { previewUrl: c.previewUrl } : {}),
  ...(c.drafts ? { drafts: true as const } : {}),
  ...(c.search ? { search: c.search } : {}),
});

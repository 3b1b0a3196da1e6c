// Working drafts (docs/features/drafts.md): an entry of a collection with `drafts: true` has, once it is published, its
// edits saved into a working draft beside the published version (autosaved while typing) until the draft is published.
import { ApiError, remote, type RouteResponse } from '../../lib/remote';
import type { Entry } from './content';

/** The draft as GET|PUT .../draft answer it: the entry with the draft's fields, `hasDraft` and `_draft`. */
export type Draft = RouteResponse<'GET /api/collections/:collection/:entryId/draft'>;

/** How long typing pauses before the draft is saved. */
export const AUTOSAVE_MS = 1500;

const where = (collection: string, entryId: string, locale?: string) => ({
  params: { collection, entryId },
  query: locale ? { locale } : {},
});

/** The entry's draft in `locale`, or null when it has none. */
export async function loadDraft(collection: string, entryId: string, locale?: string): Promise<Draft | null> {
  try {
    return await remote('GET /api/collections/:collection/:entryId/draft', where(collection, entryId, locale));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

/** Writes the fields into the draft (made from the published values on the first write). */
export const putDraft = (collection: string, entryId: string, body: Record<string, unknown>, locale?: string) =>
  remote('PUT /api/collections/:collection/:entryId/draft', { ...where(collection, entryId, locale), body });

/** Publishes the draft: the answer is the entry as published now. */
export const publishDraft = async (collection: string, entryId: string, locale?: string): Promise<Entry> =>
  (await remote('POST /api/collections/:collection/:entryId/draft/publish', where(collection, entryId, locale))) as unknown as Entry;

export const discardDraft = (collection: string, entryId: string, locale?: string) =>
  remote('DELETE /api/collections/:collection/:entryId/draft', where(collection, entryId, locale));

/** A draft read as an entry (the form fills from it as from the published entry). */
export const draftAsEntry = (d: Draft): Entry => d as unknown as Entry;

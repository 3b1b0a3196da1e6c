import { type BusEvent, hasPermission, hasScopedPermission, type Identity, ruleLimits } from '../../kernel/sdk.js';
import { ENTRY_EVENTS, type ContentEvent as ContentEventPayload, type Entry } from '../content/public.js';

export type EntryEventKind = 'added' | 'updated' | 'deleted';

/** The bus events each kind listens to. */
export const ENTRY_EVENT_NAMES: Record<EntryEventKind, string[]> = {
  added: [ENTRY_EVENTS.create, ENTRY_EVENTS.statusChange],
  updated: [ENTRY_EVENTS.update],
  deleted: [ENTRY_EVENTS.delete, ENTRY_EVENTS.statusChange],
};

/**
 * The entry a subscriber of `<singular><Kind>` gets for a bus event, or undefined. Only events of the
 * subscriber's tenant, and only for holders of content:read or of a read rule for the collection (whose rule
 * then decides further: EntriesService.eventEntry).
 * - Writers (content:write) see every entry as it happens: create -> Added, update -> Updated, delete -> Deleted.
 * - Readers see the published entries only, as they appear and disappear for them: a published create
 *   or a publication -> Added; an update of a published entry -> Updated; deleting a published entry
 *   or unpublishing one (status changes away from published) -> Deleted. Updates of drafts and
 *   archived entries never reach them.
 */
export function entryFor(kind: EntryEventKind, collection: string, identity: Identity, event: BusEvent): Entry | undefined {
  const entry = picked(kind, collection, identity, event);
  // The review stage (docs/features/review-stages.md) is shown to those who may write the collection only.
  if (!entry || !('_stage' in entry) || hasScopedPermission(identity, 'content:write', collection)) return entry;
  const { _stage: _left, ...rest } = entry as Entry & { _stage?: unknown };
  return rest as Entry;
}

function picked(kind: EntryEventKind, collection: string, identity: Identity, event: BusEvent): Entry | undefined {
  const p = event.payload as ContentEventPayload;
  if (!p || p.collection !== collection || p.tenantId !== identity.tenantId || !p.entry) return undefined;
  if (!hasPermission(identity, 'content:read') && !ruleLimits(identity, collection, 'read')) return undefined;
  const writer = hasPermission(identity, 'content:write');
  const published = p.entry.status === 'published';
  const wasPublished = p.previousStatus === 'published';
  switch (event.name) {
    case ENTRY_EVENTS.create:
      return kind === 'added' && (writer || published) ? p.entry : undefined;
    case ENTRY_EVENTS.update: {
      // A status change also raises on:status_change, which readers get as Added or Deleted.
      const statusChanged = p.previousStatus !== undefined && p.previousStatus !== p.entry.status;
      return kind === 'updated' && (writer || (published && !statusChanged)) ? p.entry : undefined;
    }
    case ENTRY_EVENTS.delete:
      return kind === 'deleted' && (writer || published) ? p.entry : undefined;
    case ENTRY_EVENTS.statusChange:
      if (writer) return undefined;
      if (kind === 'added' && published && !wasPublished) return p.entry;
      if (kind === 'deleted' && !published && wasPublished) return p.entry;
      return undefined;
    default:
      return undefined;
  }
}

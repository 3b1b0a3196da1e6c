import { type BusEvent, hasPermission, hasScopedPermission, type Identity, ruleLimits } from '../../kernel/sdk.js';
import { ENTRY_EVENTS, type ContentEvent as ContentEventPayload, type EntriesService, type Entry } from '../content/public.js';

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

/** What a subscription in a locale asks of the entries service. */
export type LocaleEventPort = Pick<EntriesService, 'eventEntry' | 'eventLocale' | 'deletedIn' | 'get'>;

/**
 * The entry a subscriber of `<singular><Kind>` in `locale` (none: the default) gets for a bus event, or undefined: the
 * entry as a read in that locale answers it (values with fallbacks, `_fallbackFields`, its status there), under the
 * rules of entryFor applied to that locale's version (readers: Added when it is published there, Deleted when it stops
 * being so or the entry is deleted while it was, Updated in between). A write of the locale's own version (or of the
 * row, for the default locale and for collections without localized fields, whose one version every locale shares)
 * carries the entry as answered there (ContentEvent.locale). A write of another locale's version leaves this one's
 * status as it was: writers get it as Added (a create) or Updated, readers as Updated when the entry is published here
 * (its shared fields, or values it falls back to, may have changed), both read again in this locale. A deleted entry is
 * answered from the values and versions its event carries. A role's read rule applies as without a locale. Decided at
 * once (no promise) unless the entry is read again or a rule is checked in the database.
 */
export function entryInLocale(
  kind: EntryEventKind,
  collection: string,
  identity: Identity,
  event: BusEvent,
  locale: string | undefined,
  entries: LocaleEventPort,
): Entry | undefined | Promise<Entry | undefined> {
  const p = event.payload as ContentEventPayload;
  if (!p || p.collection !== collection || p.tenantId !== identity.tenantId || !p.entry) return undefined;
  const ruled = ruleLimits(identity, collection, 'read') !== null;
  if (!hasPermission(identity, 'content:read') && !ruled) return undefined;
  let facts: ReturnType<LocaleEventPort['eventLocale']>;
  try {
    facts = entries.eventLocale(collection, locale, identity);
  } catch {
    return undefined; // the locale was deleted since (or the caller's rule changed): nothing more in it
  }
  const { code, defaultCode, localized } = facts;
  const writer = hasPermission(identity, 'content:write');
  const gone = event.name === ENTRY_EVENTS.delete;
  let entry: Entry | undefined;
  if (gone) {
    if (kind !== 'deleted') return undefined;
    entry = entries.deletedIn(collection, p.entry, p.versions, code, !writer);
    if (!writer && entry.status !== 'published') return undefined;
  } else if (!localized || (p.locale ?? defaultCode) === code) {
    entry = entryFor(kind, collection, identity, event);
    if (entry && entry._locale !== code) entry = { ...entry, _locale: code };
  } else {
    const reread = (kind === 'added' && event.name === ENTRY_EVENTS.create) || (kind === 'updated' && event.name === ENTRY_EVENTS.update);
    if (!reread) return undefined;
    // The caller's own read (its visibility and rules) in this locale: nothing when it may not see the entry there.
    return entries.get(collection, p.entry._id, identity, { locale: code === defaultCode ? undefined : code }).catch(() => undefined);
  }
  if (!entry || !ruled) return entry;
  return entries.eventEntry(collection, entry, identity, gone, code);
}

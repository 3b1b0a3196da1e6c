import type { EventBus, Identity, Logger } from '../../kernel/sdk.js';
import type { ContentEvent, Entry, EntryChange } from './entry-shape.js';
import type { ListCache } from './list-cache.js';
import { ENTRY_EVENTS } from './public.js';

/** Events published between two yields to the event loop, so a large announcement does not hog the process. */
const ANNOUNCE_CHUNK = 100;

/** An event's copy of an entry: as a writer's answer, without when each locale's values last changed (a reader's field). */
function eventCopy(entry: Entry): Entry {
  const { _localeUpdatedAt: _times, ...copy } = entry as Entry & { _localeUpdatedAt?: unknown };
  return copy as Entry;
}

/**
 * One event per entry, for the caller (its tenant and user) writing in a collection. Each holds a copy of its entry (the
 * answer the writer gets is completed after the events go out: in-process subscribers must not see it change).
 * `locale`: a write of that locale's own version (ContentEvent.locale). `extra`: more of the payload per entry.
 */
export function entryEvents(
  event: keyof typeof ENTRY_EVENTS,
  name: string,
  entries: Entry[],
  identity: Identity,
  locale?: string,
  extra: (entry: Entry) => Partial<ContentEvent> = () => ({}),
): Array<[string, ContentEvent]> {
  const at = locale ? { locale } : {};
  return entries.map((entry) => [
    ENTRY_EVENTS[event],
    { tenantId: identity.tenantId, collection: name, entry: eventCopy(entry), userId: identity.userId, ...at, ...extra(entry) },
  ]);
}

/** The events of creates: on:create for each, and on:publish for each created published (`locale`: created in it). */
export function createEvents(name: string, entries: Entry[], identity: Identity, locale?: string): Array<[string, ContentEvent]> {
  const created = entryEvents('create', name, entries, identity, locale);
  const published = created
    .filter(([, e]) => e.entry.status === 'published')
    .map(([, e]): [string, ContentEvent] => [ENTRY_EVENTS.publish, e]);
  return [...created, ...published];
}

/**
 * The events of an update: on:update, and on:status_change (and on:publish when it became published) when the status
 * moved. `locale`: a write of that locale's own version, `entry` and `before` answered there (ContentEvent.locale).
 */
export function updateEvents(
  name: string,
  entry: Entry,
  before: Pick<Entry, 'status'>,
  identity: Identity,
  locale?: string,
): Array<[string, ContentEvent]> {
  const moved = entry.status !== before.status;
  const payload = (): ContentEvent => ({
    tenantId: identity.tenantId,
    collection: name,
    entry: eventCopy(entry),
    userId: identity.userId,
    ...(moved ? { previousStatus: before.status } : {}),
    ...(locale ? { locale } : {}),
  });
  const events: Array<[string, ContentEvent]> = [[ENTRY_EVENTS.update, payload()]];
  if (moved) {
    const shared = payload();
    events.push([ENTRY_EVENTS.statusChange, shared]);
    if (entry.status === 'published') events.push([ENTRY_EVENTS.publish, shared]);
  }
  return events;
}

/**
 * What follows a committed write: the collection's cached lists are invalidated and the entry events
 * published. The write stands whatever happens here: failures are logged, never thrown to the caller.
 */
export class EntryAnnouncer {
  constructor(
    private readonly lists: ListCache,
    private readonly events: EventBus,
    private readonly logger?: Logger,
  ) {}

  /** After a commit: the list cache and the events. Their failure is logged; the write stands and the request succeeds. */
  async announceSafely(name: string, tenantId: string, events: Array<[string, ContentEvent]>): Promise<void> {
    try {
      await this.announce(name, tenantId, events);
    } catch (err) {
      this.logger?.warn({ err, collection: name }, 'entry written, but its list cache or events could not be updated');
    }
  }

  private async announce(name: string, tenantId: string, events: Array<[string, ContentEvent]>): Promise<void> {
    await this.lists.invalidate(tenantId, name);
    for (const [event, payload] of events) await this.events.publish(event, payload);
  }

  async invalidateLists(tenantId: string, collection: string): Promise<void> {
    await this.lists.invalidate(tenantId, collection);
  }

  /** After a bulk commit: the lists once; a failure is logged (the events still go out, see announceChanges). */
  async invalidateListsSafely(tenantId: string, collection: string): Promise<void> {
    try {
      await this.lists.invalidate(tenantId, collection);
    } catch (err) {
      this.logger?.warn({ err, collection }, 'entries written, but their list cache could not be updated');
    }
  }

  /** See EntriesService.announceChanges. */
  async announceChanges(tenantId: string, userId: string | null, changes: EntryChange[]): Promise<void> {
    let failed = 0;
    let lastError: unknown = null;
    for (let i = 0; i < changes.length; i += ANNOUNCE_CHUNK) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      for (const { event, collection, entry } of changes.slice(i, i + ANNOUNCE_CHUNK)) {
        const payload: ContentEvent = { tenantId, collection, entry, userId };
        // As for creates through the service (createEvents): an entry created published also became published.
        const names =
          event === 'create' && entry.status === 'published' ? [ENTRY_EVENTS.create, ENTRY_EVENTS.publish] : [ENTRY_EVENTS[event]];
        for (const name of names) {
          try {
            await this.events.publish(name, payload);
          } catch (err) {
            failed++;
            lastError = err;
          }
        }
      }
    }
    if (failed)
      this.logger?.warn({ err: lastError, failed, total: changes.length }, 'entries written, but some entry events could not be published');
  }
}

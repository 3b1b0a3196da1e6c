/** Scheduled publishing and unpublishing of one entry (publish-schedules.ts): read, set, cancel. */
import { z } from 'zod';
import { ValidationError, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { entryParams, entryStateAccess } from './entry-state-route.js';
import { localeParam } from './routes-entries.js';

const PATH = '/api/collections/:collection/:entryId/schedule';
const schedule = z
  .object({
    publishAt: z.string().nullable().meta({ description: 'When the entry is published (ISO 8601); null: not scheduled' }),
    unpublishAt: z.string().nullable().meta({ description: 'When the entry goes back to draft (ISO 8601); null: not scheduled' }),
  })
  .meta({ id: 'PublishSchedule' });
const when = z.string().datetime({ offset: true }).nullable().optional();

/** A time given: in the future, at most 5 years ahead; else 400 naming the key. */
function future(value: string | null | undefined, key: string): Date | null | undefined {
  if (value === undefined || value === null) return value;
  const at = new Date(value);
  const ahead = at.getTime() - Date.now();
  if (ahead <= 0 || ahead > MAX_AHEAD_MS)
    throw new ValidationError(`${key} must lie in the future, at most 5 years ahead`, [
      { path: `body.${key}`, message: ahead <= 0 ? 'in the past' : 'more than 5 years ahead' },
    ]);
  return at;
}
/** How far ahead a publish time may be set. */
const MAX_AHEAD_MS = 5 * 366 * 24 * 3600 * 1000;

const localeQuery = {
  query: z.object({
    locale: localeParam.describe(
      "A locale's code (GET /api/locales): the schedule of the entry's version in that locale; default: the default locale. Unknown: 400 VALIDATION_ERROR",
    ),
  }),
};

export const scheduleRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    ...entryStateAccess(PATH),
    summary: "The entry's scheduled publish and unpublish times, if any (with locale: of its version in that locale)",
    request: { ...entryParams, ...localeQuery },
    response: schedule,
    async handler({ params, query, identity, scope }) {
      // The entry is read first, so a missing one answers as its GET does.
      await scope.content.entries(params.collection).get(params.entryId);
      const locale = await scope.entries.versionLocale(params.collection, query.locale);
      return scope.publishSchedules.get(identity.tenantId, params.collection, params.entryId, locale);
    },
  }),
  defineRoute({
    method: 'PUT',
    ...entryStateAccess(PATH),
    summary:
      'Schedules the entry to be published at publishAt and/or set back to draft at unpublishAt (ISO 8601, in the future), or cancels either with null; a key left out stays as it is',
    description:
      "Every instance checks for due entries every 30 seconds (plugins.options.content.scheduleIntervalMs); the entry is then published (or set to draft) as a status change (revision, events, caches, webhooks), by the system on behalf of the tenant. An entry already published when its publish time comes, or no longer published when its unpublish time comes, stays as it is. A time in the past, or more than 5 years ahead, answers 400; so does publishAt for an entry published already, unpublishAt for an entry that is neither published nor scheduled to be, and an unpublishAt not after the publishAt. With locale (not the default, a collection with localized fields): the schedules of the entry's version in that locale, one of each per locale.",
    request: {
      ...entryParams,
      ...localeQuery,
      body: z
        .object({ publishAt: when, unpublishAt: when })
        .refine((b) => b.publishAt !== undefined || b.unpublishAt !== undefined, 'publishAt or unpublishAt'),
    },
    response: schedule,
    async handler({ params, query, body, identity, scope }) {
      // In a locale, the status is that locale's version's.
      const entry = await scope.content.entries(params.collection).get(params.entryId, { locale: query.locale });
      // Scheduling publishes (or unpublishes) later: the caller's publish rules must allow it on this entry now.
      await scope.entries.assertMayAct(params.collection, [params.entryId], identity, 'publish', undefined, query.locale);
      const locale = await scope.entries.versionLocale(params.collection, query.locale);
      const publishAt = future(body.publishAt, 'publishAt');
      const unpublishAt = future(body.unpublishAt, 'unpublishAt');
      if (publishAt && entry.status === 'published')
        throw new ValidationError('The entry is published already', [{ path: 'body.publishAt', message: 'already published' }]);
      if (unpublishAt) {
        const stored = await scope.publishSchedules.get(identity.tenantId, params.collection, params.entryId, locale);
        const publishing = publishAt !== undefined ? publishAt : stored.publishAt ? new Date(stored.publishAt) : null;
        if (entry.status !== 'published' && !publishing)
          throw new ValidationError('The entry is neither published nor scheduled to be', [
            { path: 'body.unpublishAt', message: 'nothing to unpublish' },
          ]);
        if (publishing && unpublishAt.getTime() <= publishing.getTime())
          throw new ValidationError('unpublishAt must come after publishAt', [
            { path: 'body.unpublishAt', message: 'not after publishAt' },
          ]);
      }
      return scope.publishSchedules.set(
        identity.tenantId,
        params.collection,
        params.entryId,
        { publishAt, unpublishAt },
        identity.userId ?? null,
        locale,
      );
    },
  }),
];

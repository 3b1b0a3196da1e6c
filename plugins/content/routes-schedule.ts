/** Scheduled publishing of one entry (publish-schedules.ts): read, set, cancel. */
import { z } from 'zod';
import { ValidationError, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { entryParams, entryStateAccess } from './entry-state-route.js';
import { localeParam } from './routes-entries.js';

const PATH = '/api/collections/:collection/:entryId/schedule';
const schedule = z
  .object({ publishAt: z.string().nullable().meta({ description: 'When the entry is published (ISO 8601); null: not scheduled' }) })
  .meta({ id: 'PublishSchedule' });
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
    summary: "The entry's scheduled publish time, if any (with locale: of its version in that locale)",
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
    summary: 'Schedules the entry to be published at publishAt (ISO 8601, in the future), or cancels with null',
    description:
      "Every instance checks for due entries every 30 seconds (plugins.options.content.scheduleIntervalMs); the entry is then published as a status change (revision, events, caches), by the system on behalf of the tenant. An entry already published at that time stays as it is. A time in the past, or more than 5 years ahead, answers 400. With locale (not the default, a collection with localized fields): the schedule publishes the entry's version in that locale, one schedule per locale.",
    request: { ...entryParams, ...localeQuery, body: z.object({ publishAt: z.string().datetime({ offset: true }).nullable() }) },
    response: schedule,
    async handler({ params, query, body, identity, scope }) {
      // In a locale, the status is that locale's version's.
      const entry = await scope.content.entries(params.collection).get(params.entryId, { locale: query.locale });
      const locale = await scope.entries.versionLocale(params.collection, query.locale);
      let at: Date | null = null;
      if (body.publishAt !== null) {
        at = new Date(body.publishAt);
        const ahead = at.getTime() - Date.now();
        if (ahead <= 0 || ahead > MAX_AHEAD_MS)
          throw new ValidationError('publishAt must lie in the future, at most 5 years ahead', [
            { path: 'body.publishAt', message: ahead <= 0 ? 'in the past' : 'more than 5 years ahead' },
          ]);
        if (entry.status === 'published')
          throw new ValidationError('The entry is published already', [{ path: 'body.publishAt', message: 'already published' }]);
      }
      return scope.publishSchedules.set(identity.tenantId, params.collection, params.entryId, at, identity.userId ?? null, locale);
    },
  }),
];

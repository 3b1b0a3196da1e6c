/** Scheduled publishing of one entry (publish-schedules.ts): read, set, cancel. */
import { z } from 'zod';
import { ValidationError, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { entryParams, entryStateAccess, entryStateRoute } from './entry-state-route.js';

const PATH = '/api/collections/:collection/:entryId/schedule';
const schedule = z
  .object({ publishAt: z.string().nullable().meta({ description: 'When the entry is published (ISO 8601); null: not scheduled' }) })
  .meta({ id: 'PublishSchedule' });
/** How far ahead a publish time may be set. */
const MAX_AHEAD_MS = 5 * 366 * 24 * 3600 * 1000;

export const scheduleRoutes: RouteDefinition[] = [
  entryStateRoute(PATH, "The entry's scheduled publish time, if any", schedule, (scope, tenantId, collection, entryId) =>
    scope.publishSchedules.get(tenantId, collection, entryId),
  ),
  defineRoute({
    method: 'PUT',
    ...entryStateAccess(PATH),
    summary: 'Schedules the entry to be published at publishAt (ISO 8601, in the future), or cancels with null',
    description:
      'Every instance checks for due entries every 30 seconds (plugins.options.content.scheduleIntervalMs); the entry is then published as a status change (revision, events, caches), by the system on behalf of the tenant. An entry already published at that time stays as it is. A time in the past, or more than 5 years ahead, answers 400.',
    request: { ...entryParams, body: z.object({ publishAt: z.string().datetime({ offset: true }).nullable() }) },
    response: schedule,
    async handler({ params, body, identity, scope }) {
      const entry = await scope.content.entries(params.collection).get(params.entryId);
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
      return scope.publishSchedules.set(identity.tenantId, params.collection, params.entryId, at, identity.userId ?? null);
    },
  }),
];

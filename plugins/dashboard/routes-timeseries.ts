import { z } from 'zod';
import { ValidationError, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { RANGE_NAMES, RETENTION_REPORT, SERIES, SERIES_BY_NAME, type RangeName } from './time-series.js';

const NAMES = SERIES.map((s) => s.name);

const seriesAnswer = z.object({
  name: z.string(),
  label: z.string(),
  unit: z.string(),
  kind: z.enum(['counter', 'gauge']),
  bucketSeconds: z.number().int(),
  points: z.array(z.tuple([z.number().int(), z.number().nullable()])),
});

export const timeSeriesRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/timeseries',
    permission: 'dashboard:read',
    tags: ['dashboard'],
    request: {
      query: z.object({
        series: z
          .string()
          .min(1)
          .max(400)
          .describe(`Comma-separated series names: ${NAMES.join(', ')}`),
        range: z.enum(RANGE_NAMES as [RangeName, ...RangeName[]]).default('1h'),
      }),
    },
    response: z
      .object({
        range: z.string(),
        series: z.array(seriesAnswer),
        retention: z.object({ minuteBucketsSeconds: z.number(), hourBucketsSeconds: z.number(), dayBucketsSeconds: z.number() }),
      })
      .meta({ id: 'DashboardTimeSeries' }),
    summary: 'Figures over time: API requests and errors, sign-ins, entries and media created, storage; [epochSeconds, value] per bucket',
    description:
      'Counters are summed over every instance on the database, including what this instance has not written yet; empty counter buckets are 0, ' +
      'gauges (storage) without a sample are null. Instance-wide series (API, storage) and per-tenant series (sign-ins, entries, media; the caller’s tenant). ' +
      'Unknown series names or ranges answer 400 VALIDATION_ERROR.',
    async handler({ scope, query, identity }) {
      const names = [...new Set(query.series.split(',').map((s) => s.trim()))];
      const unknown = names.filter((n) => !SERIES_BY_NAME.has(n));
      if (unknown.length || names.length === 0)
        throw new ValidationError(`Unknown series ${unknown.map((n) => `'${n.slice(0, 64)}'`).join(', ')}; known: ${NAMES.join(', ')}`, [
          { path: 'query.series', message: `unknown series: ${unknown.map((n) => n.slice(0, 64)).join(', ')}` },
        ]);
      const series = await scope.dashboardTimeSeries.query(names, query.range, identity.tenantId);
      return { range: query.range, series, retention: RETENTION_REPORT };
    },
  }),
];

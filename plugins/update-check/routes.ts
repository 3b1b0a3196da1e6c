import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';

const tags = ['telemetry'];

const advisory = z.object({
  id: z.string(),
  severity: z.string(),
  affected: z.string(),
  fixedIn: z.string().nullable(),
  summary: z.string(),
});

export const updateStatusSchema = z
  .object({
    enabled: z.boolean(),
    reason: z.string().nullable(),
    reasonText: z.string().nullable(),
    serverConfigured: z.boolean(),
    registered: z.boolean(),
    currentVersion: z.string(),
    latestVersion: z.string().nullable(),
    updateAvailable: z.boolean(),
    advisories: z.array(advisory),
    checkedAt: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    lastError: z.string().nullable(),
  })
  .meta({ id: 'UpdateCheckStatus' });

const diagnoseSchema = z
  .object({
    enabled: z.boolean(),
    reason: z.string().nullable(),
    reasonText: z.string().nullable(),
    steps: z.array(
      z.object({
        step: z.enum(['registration', 'signed-ping', 'geolocation']),
        ok: z.boolean(),
        ms: z.number().int(),
        detail: z.string().optional(),
        error: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'UpdateCheckDiagnosis' });

export const updateCheckRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/telemetry/status',
    permission: 'system:read',
    tags,
    summary: 'The last update check: latest version, whether an update is available, security advisories, and whether checks are enabled',
    description:
      'Read from the database (no outgoing request). `updateAvailable` and `advisories` are compared with the running version, so they clear as soon as the instance runs the new version.',
    request: {},
    response: updateStatusSchema,
    handler: ({ scope }) => scope.updateCheck.status(),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/telemetry/diagnose',
    permission: 'manage:system',
    tags,
    summary: 'Runs a registration check, a signed ping and a geolocation lookup against the update server and reports each step',
    description:
      'Admins only. Answers 200 even when the update check is disabled: then `enabled` is false, `reason` says why, and nothing is sent. Each step is `{step, ok, ms, detail?, error?}`; the signed ping is a real check (its result is stored).',
    request: {},
    rateLimit: { points: 10, durationSeconds: 60 },
    response: diagnoseSchema,
    handler: ({ scope }) => scope.updateCheck.diagnose(),
  }),
];

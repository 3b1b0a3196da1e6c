import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { applyBodySchema, applyRoute, planRoute, verifyRoute, type DataRouteCommon } from '../data-ops/public.js';
import { MIGRATION_ID } from './definition.js';
import { DOMAIN_ID, planInput } from './domain.js';

/** One applied migration of the ledger (GET /api/migrations/history). */
export const ledgerEntrySchema = z.object({
  id: z.string(),
  planId: z.string(),
  planHash: z.string(),
  checksum: z.string(),
  source: z.string(),
  actor: z.string().nullable(),
  counts: z.object({ updated: z.number(), moved: z.number() }),
  appliedAt: z.string(),
});

const common: DataRouteCommon = {
  domain: DOMAIN_ID,
  prefix: '/api/migrations',
  tags: ['migrations'],
  permissions: { read: 'migration:read', write: 'migration:apply' },
  installation: 'tenant',
};
const verifyResult = z.object({ ok: z.boolean(), discrepancies: z.array(z.string()) });

export const migrationRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/migrations/status',
    permission: 'migration:read',
    installation: 'tenant',
    tags: ['migrations'],
    summary: 'Declared data migrations: pending (with their risk) and applied (from the ledger), declaration errors, changed definitions',
    description:
      'Migrations come from plugins (registry dataMigrations) and from <data>/migrations/*.json, read on every call. A file that is not valid JSON or ' +
      'not a valid migration is listed under errors (source, message) and never planned. discrepancies names applied migrations whose definition changed or vanished.',
    request: {},
    response: z.object({
      pending: z.array(
        z.object({ id: z.string(), risk: z.enum(['safe', 'warning', 'destructive']), description: z.string(), source: z.string() }),
      ),
      applied: z.array(z.object({ id: z.string(), planHash: z.string(), appliedAt: z.string() })),
      errors: z.array(z.object({ source: z.string(), message: z.string() })),
      discrepancies: z.array(z.string()),
    }),
    handler: ({ identity, scope }) => scope.dataMigrations.status(identity.tenantId),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/migrations/history',
    permission: 'migration:read',
    installation: 'tenant',
    tags: ['migrations'],
    summary:
      'The ledger of applied migrations, newest first: id, planId, planHash, checksum of the definition, source, actor, counts, appliedAt',
    request: {},
    response: z.object({ history: z.array(ledgerEntrySchema) }),
    handler: ({ identity, scope }) => scope.dataMigrations.history(identity.tenantId),
  }),
  planRoute(common, {
    summary: 'Plans the pending migrations (or the given ids) without changing anything: rows touched per migration, risk, samples',
    description:
      'One operation per migration (type migration, count = entries it changes), in id order; each migration sees the ones before it. warnings hold ' +
      '"<id>: N entries updated, M moved (risk)" and up to 5 samples per migration ({message: "sample: <id>", item: "<entryId>: title \\"A\\" -> \\"a\\""}). ' +
      'Unknown fields, invalid values, failed casts, slug clashes of moves and already applied ids are blockedReasons. An unknown id -> 400.',
    body: planInput,
    input: (body) => ({ input: body, mode: 'merge' }),
  }),
  applyRoute(common, {
    summary: 'Applies a plan (always inline, one transaction): each migration writes its entries and its ledger row, or nothing is written',
    description:
      'A destructive plan (moves, values mapped to null) needs confirmed: true (409 CONFIRMATION_REQUIRED). A migration runs once per tenant: the ledger key ' +
      'refuses a second run even from another instance. Errors of the data-operation engine: 404 PLAN_NOT_FOUND, 410 PLAN_EXPIRED, 409 PLAN_STALE, 409 LOCK_CONTENTION, 400 PLAN_BLOCKED.',
    body: applyBodySchema.strict(),
  }),
  verifyRoute(common, {
    summary:
      'Checks applied migrations: ledger checksums against the current definitions, and postconditions on the data (running them again would change nothing)',
    body: z.object({ ids: z.array(z.string().regex(MIGRATION_ID)).max(200).optional() }).strict(),
    response: verifyResult,
    handler: (body, { identity, scope }) => scope.dataMigrations.verify(identity.tenantId, body.ids),
  }),
];

/**
 * The `config` data-operation domain (configuration promotion): a small object implementing the
 * engine's contract (plugins/data-ops/public.ts); the work is in ConfigSyncService.
 */
import { z } from 'zod';
import { ValidationError } from '../../kernel/errors.js';
import type { DataDomainDefinition } from '../data-ops/public.js';
import type { ConfigInput, ConfigSyncService } from './config-sync-service.js';
import { RESOURCE_TYPES } from './resources.js';

export const configInputSchema = z.strictObject({
  types: z
    .array(z.enum(RESOURCE_TYPES))
    .min(1)
    .max(RESOURCE_TYPES.length)
    .optional()
    .meta({ description: 'Resource types to plan (default: every type this instance has)' }),
});

export function configDomain(service: () => ConfigSyncService, knownPermissions: () => Set<string>): DataDomainDefinition<ConfigInput> {
  return {
    id: 'config',
    auditDomain: 'config',
    modes: ['add', 'merge', 'mirror', 'replace'],
    defaultMode: 'merge',
    inlineThreshold: 100,
    transactional: true,
    async validate(input) {
      const parsed = configInputSchema.safeParse(input ?? {});
      if (!parsed.success) {
        throw new ValidationError(
          'Invalid configuration plan input',
          parsed.error.issues.map((i) => ({ path: ['body', ...i.path].join('.'), message: i.message })),
        );
      }
      const available = service().types();
      const types = parsed.data.types ? available.filter((t) => parsed.data.types!.includes(t)) : available;
      const missing = (parsed.data.types ?? []).filter((t) => !available.includes(t));
      if (missing.length) {
        throw new ValidationError(
          `Resource types not available on this instance: ${missing.join(', ')}`,
          missing.map((t) => ({ path: 'body.types', message: `'${t}' is not available` })),
        );
      }
      return { types };
    },
    snapshot: (input, ctx) => service().snapshot(ctx.tenantId, input),
    async plan(input, mode, ctx) {
      const draft = await service().plan(ctx.tenantId, input, mode, knownPermissions());
      return { ...draft, targetHash: await service().snapshot(ctx.tenantId, input) };
    },
    async apply(operation, ctx) {
      await service().apply(ctx.plan.tenantId ?? ctx.tenantId, operation, ctx.transaction);
    },
    verify: (plan, ctx) => service().verify(plan.tenantId ?? ctx.tenantId, plan),
  };
}

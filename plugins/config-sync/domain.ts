/**
 * The `config` data-operation domain (configuration promotion): a small object implementing the
 * engine's contract (plugins/data-ops/public.ts); the work is in ConfigSyncService.
 */
import { z } from 'zod';
import { ValidationError } from '../../kernel/errors.js';
import { parseInput, type DataDomainDefinition } from '../data-ops/public.js';
import { MappingError, UploadNotFound, type ConfigInput, type ConfigSyncService } from './config-sync-service.js';
import { RESOURCE_TYPES } from './resources.js';

export const configInputSchema = z.strictObject({
  types: z
    .array(z.enum(RESOURCE_TYPES))
    .min(1)
    .max(RESOURCE_TYPES.length)
    .optional()
    .meta({ description: 'Resource types to plan (default: every type this instance has)' }),
});

/** The plan body's members besides mode: types, plus a bundle upload and manual identity mappings. */
export const configPlanInputSchema = configInputSchema.extend({
  uploadId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'Plan against a bundle uploaded with POST /api/config/bundle instead of the sync files on disk' }),
  mappings: z
    .record(z.string().min(1).max(300), z.string().min(1).max(191).nullable())
    .optional()
    .refine((m) => !m || Object.keys(m).length <= 1000, 'at most 1000 mappings')
    .meta({
      description:
        'Manual identity mappings: "<type>/<file name>" (as in the plan\'s warnings, e.g. "role/author.json") or "<type>/<name>" -> the name of a database resource of that type, or null to create the file\'s resource as new',
    }),
});

export function configDomain(service: () => ConfigSyncService, knownPermissions: () => Set<string>): DataDomainDefinition<ConfigInput> {
  return {
    id: 'config',
    auditDomain: 'config',
    modes: ['add', 'merge', 'mirror', 'replace'],
    defaultMode: 'merge',
    inlineThreshold: 100,
    transactional: true,
    async validate(input, ctx) {
      const parsed = parseInput(configPlanInputSchema, input ?? {}, 'Invalid configuration plan input');
      const available = service().types();
      const types = parsed.types ? available.filter((t) => parsed.types!.includes(t)) : available;
      const missing = (parsed.types ?? []).filter((t) => !available.includes(t));
      if (missing.length) {
        throw new ValidationError(
          `Resource types not available on this instance: ${missing.join(', ')}`,
          missing.map((t) => ({ path: 'body.types', message: `'${t}' is not available` })),
        );
      }
      const normalised: ConfigInput = {
        types,
        ...(parsed.uploadId ? { uploadId: parsed.uploadId } : {}),
        ...(parsed.mappings && Object.keys(parsed.mappings).length ? { mappings: parsed.mappings } : {}),
      };
      try {
        if (normalised.uploadId) await service().readUpload(ctx.tenantId, normalised.uploadId, types);
        await service().checkMappings(ctx.tenantId, normalised);
      } catch (err) {
        if (err instanceof UploadNotFound) throw new ValidationError(err.message, [{ path: 'body.uploadId', message: err.message }]);
        if (err instanceof MappingError) throw new ValidationError(`Invalid mappings: ${err.message}`, err.issues);
        throw err;
      }
      return normalised;
    },
    snapshot: (input, ctx) => service().snapshot(ctx.tenantId, input),
    async plan(input, mode, ctx) {
      const draft = await service().plan(ctx.tenantId, input, mode, knownPermissions());
      return { ...draft, targetHash: await service().snapshot(ctx.tenantId, input) };
    },
    // Collection schema operations carry outsideTransaction (DDL): they run before the transaction and answer an undo.
    apply: (operation, ctx) => service().apply(ctx.plan.tenantId ?? ctx.tenantId, operation, ctx.transaction),
    verify: (plan, ctx) => service().verify(plan.tenantId ?? ctx.tenantId, plan),
  };
}

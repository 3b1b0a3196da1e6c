import semver from 'semver';
import { z } from 'zod';

/**
 * The spec's update-check payload ("Update-check payload"): every top-level field required; the
 * location fields may be null (a failed geolocation leaves them so), as may the system details an
 * environment cannot tell. Unknown extra fields are allowed (a newer instance), at most 40 in all.
 */
const text = (max: number) => z.string().max(max);
const count = z.number().int().min(0).max(1e12);
const jsonList = z
  .string()
  .max(20_000)
  .refine((s) => {
    try {
      const v: unknown = JSON.parse(s);
      return Array.isArray(v) && v.length <= 1000;
    } catch {
      return false;
    }
  }, 'a JSON-encoded array (at most 1000 items)');

export const locationSchema = z.object({
  country: text(100).nullable().optional(),
  country_code: text(8).nullable().optional(),
  region: text(100).nullable().optional(),
  city: text(100).nullable().optional(),
  latitude: z.number().min(-90).max(90).nullable().optional(),
  longitude: z.number().min(-180).max(180).nullable().optional(),
  isp: text(200).nullable().optional(),
  org: text(200).nullable().optional(),
});

export const updateCheckPayloadSchema = z
  .looseObject({
    current_version: z
      .string()
      .max(64)
      .refine((v) => semver.valid(v) !== null, 'a semantic version such as 1.4.0'),
    node_version: text(64),
    environment: text(32),
    is_ephemeral: z.boolean(),
    installation_id: z.string().regex(/^[0-9a-f]{64}$/, '64 lower-case hex characters (a SHA-256)'),
    stable_id: text(128),
    db_type: text(32),
    location: locationSchema,
    metrics: z.object({ users: count, collections: count, roles: count }),
    system: z.object({
      cpu_count: count.nullable(),
      cpu_model: text(200).nullable(),
      total_memory_gb: z.number().min(0).max(1e6).nullable(),
      os_type: text(64).nullable(),
      os_arch: text(64).nullable(),
    }),
    widgets: jsonList,
    dashboard_widgets: jsonList,
    plugins: jsonList,
  })
  .refine((p) => Object.keys(p).length <= 40, 'at most 40 fields');
export type UpdateCheckPayload = z.output<typeof updateCheckPayloadSchema>;

/** The envelope as received: the payload is kept exactly as sent (the signature covers it). */
export const checkUpdateBodySchema = z.object({
  payload: z.record(z.string(), z.unknown()),
  signature: z.string().max(200),
  timestamp: z.number().int(),
});

export const registerBodySchema = z.object({
  installation_id: z.string().regex(/^[0-9a-f]{64}$/, '64 lower-case hex characters (a SHA-256)'),
});

export const checkUpdateResponseSchema = z.object({
  latest_version: z.string(),
  current_version: z.string(),
  update_available: z.boolean(),
  advisories: z.array(
    z.object({ id: z.string(), severity: z.string(), affected: z.string(), fixed_in: z.string().nullable(), summary: z.string() }),
  ),
});

import { z } from 'zod';
import semver from 'semver';

const secretText = z.string().min(16, 'at least 16 characters').max(512);
/**
 * plugins.options['update-server']; the UPDATE_SERVER_* environment variables win (README, "Update server").
 * Merged and validated by the kernel; its messages never show a value (several options are secrets).
 */
export const updateServerOptionsSchema = z.object({
  /** Derives each installation's secret (UPDATE_SERVER_SECRET); generated into <data>/update-server/keys.json when unset. */
  secretKey: secretText.optional(),
  /** Salts the hashes of client IPs (UPDATE_SERVER_IP_SALT); generated into <data>/update-server/keys.json when unset. */
  ipSalt: secretText.optional(),
  /** Bearer token of GET /api/stats (UPDATE_SERVER_OPERATOR_TOKEN); unset: the statistics are closed. */
  operatorToken: secretText.optional(),
  /** JSON file `{latest, advisories: [...]}` (UPDATE_SERVER_VERSIONS_FILE), relative to the working folder. */
  versionsFile: z.string().min(1).max(1000).optional(),
  /** The latest version when there is no versions file (UPDATE_SERVER_LATEST_VERSION); default: this code's version. */
  latestVersion: z
    .string()
    .refine((v) => semver.valid(v) !== null, 'a semantic version such as 1.4.0')
    .optional(),
  /** How long the versions file is cached (UPDATE_SERVER_VERSION_CACHE_SECONDS; the spec's version cache: 1 hour). */
  versionCacheSeconds: z.number().int().min(0).max(86_400).default(3600),
  /** One accepted check per client IP per this many seconds (UPDATE_SERVER_CHECK_INTERVAL_SECONDS; 12 hours; 0: no limit). */
  checkIntervalSeconds: z
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(12 * 3600),
  /** Rows of the checks table older than this are deleted (UPDATE_SERVER_CHECKS_RETENTION_DAYS). */
  checksRetentionDays: z.number().int().min(1).max(3650).default(365),
  /** Registrations never followed by a check are deleted after this many days. */
  unusedRegistrationDays: z.number().int().min(1).max(365).default(30),
  /** POST /api/register per client IP per hour. */
  registerPerHour: z.number().int().min(1).max(10_000).default(30),
});
export type UpdateServerOptions = z.output<typeof updateServerOptionsSchema>;

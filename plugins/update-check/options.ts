import { z } from 'zod';
import type { CmsConfig } from '../../kernel/sdk.js';

/** The spec's update-check limits: geolocation lookup and heartbeat (register, check-update) timeouts. */
export const GEOLOCATION_TIMEOUT_MS = 5_000;
export const HEARTBEAT_TIMEOUT_MS = 10_000;
export const TWELVE_HOURS_MS = 12 * 60 * 60 * 1000;
/** The default geolocation lookup: the caller's own address, no key needed (`off` disables it). */
export const DEFAULT_GEOLOCATION_URL = 'https://ipapi.co/json/';

const url = z.url({ protocol: /^https?$/ });

/**
 * plugins.options['update-check'], merged by the kernel (docs/configuration.md, "One configuration path"):
 * telemetry, url, initialDelayMs and geolocationUrl: env > plugins.options (url then the private
 * TELEMETRY_URL setting, read at each check); ci: plugins.options > env (`under` in plugin.json, so a test
 * on a CI machine can say it is not CI).
 */
export const updateCheckOptionsSchema = z.strictObject({
  /** CMS_TELEMETRY: false turns the update check off completely (nothing is sent, diagnose included). */
  telemetry: z.boolean().default(true),
  /** CMS_TELEMETRY_URL: the update server's base address (`/api/register`, `/api/check-update` beneath it). */
  url: url.optional(),
  /** CMS_TELEMETRY_INITIAL_DELAY_MS: the first check after WARMED; default a random moment 10-60 s after it. */
  initialDelayMs: z.number().int().min(0).max(60_000).optional(),
  /** CMS_TELEMETRY_GEOLOCATION_URL: the geolocation lookup (`off` or empty: none, the location stays null). */
  geolocationUrl: z
    .union([url, z.literal('off'), z.literal(['OFF', 'Off']).transform(() => 'off' as const), z.literal('')])
    .default(DEFAULT_GEOLOCATION_URL),
  /** CI (or CONTINUOUS_INTEGRATION, BUILD_NUMBER): set in CI environments, where no check runs. */
  ci: z.union([z.string(), z.boolean()]).optional(),
  /** Let the check run although NODE_ENV is `test` (the plugin's own tests; never in production). */
  allowInTests: z.boolean().default(false),
  /** How often an instance checks (at most once per period across the instances of one database). */
  intervalMs: z.number().int().min(1_000).default(TWELVE_HOURS_MS),
  /** Random extra delay added to each period, so installations do not call at the same moment. */
  jitterMs: z
    .number()
    .int()
    .min(0)
    .default(30 * 60 * 1000),
  /** After a failed check, the next try comes this much later (instead of a whole period). */
  retryMs: z
    .number()
    .int()
    .min(1_000)
    .default(60 * 60 * 1000),
  /** Overrides `is_ephemeral` (default: true for NODE_ENV=development or a data folder under the system's temporary folder). */
  ephemeral: z.boolean().optional(),
});
export type UpdateCheckOptions = z.output<typeof updateCheckOptionsSchema>;

/** A set CI variable counts unless it says no (`CI=false`, `0`, `no`, `off`). */
export function isCi(value: string | boolean | undefined): boolean {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  return !/^\s*(0|false|no|off)?\s*$/i.test(value);
}

export type DisabledReason = 'telemetry-off' | 'ci' | 'test-environment' | 'setting-off' | 'no-server';

export const REASON_TEXT: Record<DisabledReason, string> = {
  'telemetry-off': 'CMS_TELEMETRY=false',
  ci: 'a CI environment (CI is set)',
  'test-environment': 'a test run (NODE_ENV=test)',
  'setting-off': 'the UPDATE_CHECK_ENABLED setting is false',
  'no-server': 'no update server configured (CMS_TELEMETRY_URL or the TELEMETRY_URL setting)',
};

/** The reasons fixed at boot (environment, options): the setting and the address are read at each check. */
export function staticDisabledReason(options: UpdateCheckOptions, config: CmsConfig): DisabledReason | null {
  if (!options.telemetry) return 'telemetry-off';
  if (isCi(options.ci)) return 'ci';
  if (config.env === 'test' && !options.allowInTests) return 'test-environment';
  return null;
}

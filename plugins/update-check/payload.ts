import { createHash } from 'node:crypto';
import { arch, cpus, tmpdir, totalmem, type } from 'node:os';
import { relative, isAbsolute } from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { CmsConfig } from '../../kernel/sdk.js';
import { GEOLOCATION_TIMEOUT_MS } from './options.js';

export interface Location {
  country: string | null;
  country_code: string | null;
  region: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
  isp: string | null;
  org: string | null;
}

/** The spec's update-check payload, field for field. Nothing else is ever sent. */
export interface UpdateCheckPayload {
  current_version: string;
  node_version: string;
  environment: string;
  is_ephemeral: boolean;
  installation_id: string;
  stable_id: string;
  db_type: string;
  location: Location;
  metrics: { users: number; collections: number; roles: number };
  system: { cpu_count: number; cpu_model: string; total_memory_gb: number; os_type: string; os_arch: string };
  /** JSON-encoded array of the registered widget ids. */
  widgets: string;
  /** JSON-encoded array of the widget ids a new dashboard shows (DASHBOARD_DEFAULT_WIDGETS, registered ones only). */
  dashboard_widgets: string;
  /** JSON-encoded array of the enabled plugin ids. */
  plugins: string;
}

export const PAYLOAD_KEYS = [
  'current_version',
  'node_version',
  'environment',
  'is_ephemeral',
  'installation_id',
  'stable_id',
  'db_type',
  'location',
  'metrics',
  'system',
  'widgets',
  'dashboard_widgets',
  'plugins',
] as const;

export const EMPTY_LOCATION: Location = {
  country: null,
  country_code: null,
  region: null,
  city: null,
  latitude: null,
  longitude: null,
  isp: null,
  org: null,
};

/** One-way: SHA-256 of OS type, architecture and core count (the same on every identical machine). */
export function stableId(): string {
  return createHash('sha256').update(`${type()}|${arch()}|${cpus().length}`).digest('hex');
}

export function systemFacts(): UpdateCheckPayload['system'] {
  return {
    cpu_count: cpus().length,
    cpu_model: (cpus()[0]?.model ?? 'unknown').trim().slice(0, 120),
    total_memory_gb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os_type: type(),
    os_arch: arch(),
  };
}

/** Temporary development installs: NODE_ENV=development, or a data folder under the system's temporary folder. */
export function isEphemeral(config: CmsConfig, override?: boolean): boolean {
  if (override !== undefined) return override;
  if (config.env === 'development') return true;
  const rel = relative(tmpdir(), config.dataPath);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** Row counts only (never a row's content); 0 when the table is absent (its plugin disabled). */
async function count(sequelize: Sequelize, table: string): Promise<number> {
  try {
    const rows = await sequelize.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table}`, { type: QueryTypes.SELECT });
    return Number(rows[0]?.n ?? 0);
  } catch {
    return 0;
  }
}

export async function metrics(sequelize: Sequelize): Promise<UpdateCheckPayload['metrics']> {
  return {
    users: await count(sequelize, 'auth_users'),
    collections: await count(sequelize, 'content_collections'),
    roles: await count(sequelize, 'auth_roles'),
  };
}

const text = (v: unknown, max = 100): string | null => (typeof v === 'string' && v.trim() ? v.trim().slice(0, max) : null);
const coordinate = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? Math.round(n * 10) / 10 : null;
};

/**
 * Maps a geolocation answer to the payload's location: the ipapi.co shape (`country_name`,
 * `country_code`, `region`, `latitude`...) and the ip-api.com shape (`country`, `countryCode`,
 * `regionName`, `lat`...) are both understood. Only these eight fields are kept (never the address
 * the service saw); latitude and longitude are rounded to one decimal (about 11 km).
 */
export function locationFrom(body: unknown): Location {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { ...EMPTY_LOCATION };
  const b = body as Record<string, unknown>;
  if (b.error === true || b.status === 'fail') return { ...EMPTY_LOCATION };
  const country = text(b.country_name) ?? (typeof b.country === 'string' && b.country.trim().length > 2 ? text(b.country) : null);
  const code =
    text(b.country_code, 3) ??
    text(b.countryCode, 3) ??
    (typeof b.country === 'string' && b.country.trim().length === 2 ? text(b.country) : null);
  return {
    country,
    country_code: code ? code.toUpperCase() : null,
    region: text(b.region) ?? text(b.regionName),
    city: text(b.city),
    latitude: coordinate(b.latitude ?? b.lat),
    longitude: coordinate(b.longitude ?? b.lon),
    isp: text(b.isp),
    org: text(b.org),
  };
}

/**
 * The geolocation lookup (the spec's 5 s; only tests pass a shorter `timeoutMs`): null fields on any
 * failure, with the reason for diagnose.
 */
export async function lookupLocation(
  url: string,
  signal?: AbortSignal,
  timeoutMs = GEOLOCATION_TIMEOUT_MS,
): Promise<{ location: Location; error?: string; off?: true }> {
  if (!url || url === 'off') return { location: { ...EMPTY_LOCATION }, off: true };
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      redirect: 'follow',
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return { location: { ...EMPTY_LOCATION }, error: `geolocation lookup answered HTTP ${res.status}` };
    }
    const location = locationFrom(await res.json());
    return location.country_code || location.country ? { location } : { location, error: 'geolocation lookup gave no country' };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const cause = e.cause?.code ?? e.cause?.message;
    const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : cause ? `${e.message} (${cause})` : e.message;
    return { location: { ...EMPTY_LOCATION }, error: `geolocation lookup failed: ${reason}` };
  }
}

/** JSON-encoded sorted unique list of ids (ids only: lower-case names, nothing free-form). */
export function idList(ids: Iterable<string>): string {
  return JSON.stringify([...new Set([...ids].filter((id) => /^[a-z0-9][a-z0-9._-]{0,63}$/i.test(id)))].sort());
}

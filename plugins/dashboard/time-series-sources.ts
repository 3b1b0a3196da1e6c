import { QueryTypes, type Sequelize } from 'sequelize';
import { type AuditLog, type BusEvent, type EventBus, type HttpMetrics, optional } from '../../kernel/sdk.js';
import { ENTRY_EVENTS } from '../content/public.js';
import { MEDIA_UPLOADED } from '../media/public.js';
import type { GaugeSampler, TimeSeriesRecorder } from './time-series-recorder.js';

/** Audit actions counted as sign-ins (every sign-in path records one: password, magic link, 2FA, OIDC, passkeys, invitations). */
const SIGN_IN = 'auth.sign-in.succeeded';
/** Refused sign-ins: a refused password, OIDC or passkey sign-in, and a wrong second-factor code. */
const SIGN_IN_FAILED = new Set(['auth.sign-in.failed', 'auth.2fa.failed']);

/**
 * Feeds the recorder from hooks that exist anyway, without a database write: the kernel's request
 * counters (HttpMetrics, the same the metrics endpoint and Prometheus read; API routes only, /api/...),
 * the audit log (sign-ins) and the event bus (on:create, on:media_upload). Bus events from other
 * instances (delivered through Redis) are skipped: each instance counts its own, and the sums add up
 * in the database. Returns the unsubscribe functions.
 */
export function watchActivity(
  recorder: TimeSeriesRecorder,
  sources: { httpMetrics: HttpMetrics; audit: AuditLog; events: EventBus },
): Array<() => void> {
  const { events } = sources;
  const local = (handler: (payload: { tenantId?: string }) => void) => (event: BusEvent) => {
    if (event.origin === events.instanceId) handler((event.payload ?? {}) as { tenantId?: string });
  };
  return [
    sources.httpMetrics.observe((_method, route, status) => {
      if (!route.startsWith('/api/')) return;
      recorder.count('api-requests');
      if (status >= 500) recorder.count('api-errors');
      else if (status >= 400) recorder.count('api-client-errors');
    }),
    sources.audit.observe((entry) => {
      if (entry.action === SIGN_IN) recorder.count('sign-ins', entry.tenantId);
      else if (SIGN_IN_FAILED.has(entry.action)) recorder.count('sign-in-failures', entry.tenantId);
    }),
    events.subscribe(
      ENTRY_EVENTS.create,
      local((p) => recorder.count('entries-created', p.tenantId ?? 'default')),
    ),
    events.subscribe(
      MEDIA_UPLOADED,
      local((p) => recorder.count('media-uploaded', p.tenantId ?? 'default')),
    ),
  ];
}

/** Bytes the database takes: SQLite pages in use, or MariaDB data and index length of this schema's tables. */
export async function databaseBytes(sequelize: Sequelize): Promise<number> {
  const sql =
    sequelize.getDialect() === 'sqlite'
      ? 'SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()'
      : 'SELECT COALESCE(SUM(data_length + index_length), 0) AS bytes FROM information_schema.tables WHERE table_schema = DATABASE()';
  const [row] = await sequelize.query<{ bytes: number | string | null }>(sql, { type: QueryTypes.SELECT });
  return Number(row?.bytes ?? 0) || 0;
}

/** The storage gauges: media bytes (through the media plugin, when enabled) and the database size. */
export function storageSampler(cradle: object, sequelize: Sequelize): GaugeSampler {
  return async () => {
    const media = optional(cradle, 'media');
    return {
      'media-bytes': media ? (await media.storedBytes()).bytes : undefined,
      'database-bytes': await databaseBytes(sequelize),
    };
  };
}

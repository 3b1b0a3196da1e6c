import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { AuditInput, AuditLog } from './audit.js';
import type { CmsConfig } from './config.js';
import type { Identity } from './http/identity.js';
import type { Logger } from './logger.js';

/** How an audit entry keeps the client's address (the AUDIT_IP_MODE setting). */
export const AUDIT_IP_MODES = ['hash', 'full', 'none'] as const;
export type AuditIpMode = (typeof AUDIT_IP_MODES)[number];
export const DEFAULT_AUDIT_IP_MODE: AuditIpMode = 'hash';

/** What an entry is about, as the caller names it (never a secret: ids and names only). */
export interface AuditTarget {
  type: string;
  id: string | null;
}

/** The per-request part of an entry: who, which tenant, which request, from where, about what. */
export interface RequestAuditFields {
  actor: { userId: string | null; tenantId: string };
  details: {
    requestId?: string;
    /** AUDIT_IP_MODE=full: the address itself. */
    ip?: string;
    /** AUDIT_IP_MODE=hash (default): HMAC-SHA256 of the address, 16 hex characters: stable, not reversible. */
    ipHash?: string;
    target?: AuditTarget;
  };
}

/** How long a tenant's AUDIT_IP_MODE is trusted before it is read again (stale values answer meanwhile). */
const MODE_TTL_MS = 10_000;
/** Tenants whose mode is kept in memory per settings service (oldest dropped beyond it). */
const MODE_CACHE_MAX = 1000;

interface SettingsLike {
  get(key: string, tenantId?: string): Promise<unknown>;
}
interface CachedMode {
  mode: AuditIpMode;
  at: number;
  refreshing?: Promise<AuditIpMode>;
}

/** One cache per settings service (per kernel): tenant → mode. */
const modeCaches = new WeakMap<object, Map<string, CachedMode>>();

const asMode = (value: unknown): AuditIpMode =>
  typeof value === 'string' && (AUDIT_IP_MODES as readonly string[]).includes(value.trim().toLowerCase())
    ? (value.trim().toLowerCase() as AuditIpMode)
    : DEFAULT_AUDIT_IP_MODE;

/**
 * The tenant's AUDIT_IP_MODE from the settings service (seeded by setup) with a short, bounded
 * in-process cache: a known value answers at once and is refreshed in the background once older than
 * MODE_TTL_MS, so an audited request waits on the settings store at most once per tenant and kernel.
 * Without a settings service (setup disabled), or when it fails, the default 'hash' applies.
 */
export async function auditIpMode(settings: SettingsLike | undefined, tenantId: string): Promise<AuditIpMode> {
  if (!settings) return DEFAULT_AUDIT_IP_MODE;
  let cache = modeCaches.get(settings);
  if (!cache) modeCaches.set(settings, (cache = new Map()));
  const read = (): Promise<AuditIpMode> =>
    settings.get('AUDIT_IP_MODE', tenantId).then(
      (value) => asMode(value),
      () => DEFAULT_AUDIT_IP_MODE,
    );
  const entry = cache.get(tenantId);
  if (entry) {
    if (Date.now() - entry.at > MODE_TTL_MS && !entry.refreshing) {
      entry.refreshing = read().then((mode) => {
        cache.set(tenantId, { mode, at: Date.now() });
        return mode;
      });
    }
    return entry.mode;
  }
  const mode = await read();
  if (cache.size >= MODE_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(tenantId, { mode, at: Date.now() });
  return mode;
}

/** Until setup has written a secret: a key of this process only (hashes then differ after a restart). */
const processKey = randomBytes(32);

/**
 * The HMAC key of address hashes: derived from RATE_LIMIT_SECRET, else JWT_SECRET_KEY, else
 * ENCRYPTION_KEY (never one of them as such), so the same address gives the same hash on every
 * instance and across restarts, and nobody without the server's secret can test a guessed address.
 */
export function auditIpKey(secrets: CmsConfig['secrets']): Buffer {
  const secret = secrets.rateLimitSecret || secrets.jwtSecretKey || secrets.encryptionKey;
  // Read per entry (setup fills the secrets in at run time); one SHA-256 of a short string.
  return secret ? createHash('sha256').update(`audit-ip:${secret}`).digest() : processKey;
}

export const hashAuditIp = (ip: string, key: Buffer): string => createHmac('sha256', key).update(ip).digest('hex').slice(0, 16);

/** The client's address as the kernel sees it (X-Forwarded-For only behind a trusted proxy). */
function clientIp(ctx: Context): string {
  if (ctx.app.proxy && !ctx.get('x-forwarded-for') && ctx.get('x-real-ip')) return ctx.get('x-real-ip');
  return ctx.ip;
}

interface RequestCradle {
  config?: CmsConfig;
  settings?: SettingsLike;
  audit?: AuditLog;
}

/** Services of the request's scope, each optional (a key that is not registered throws in awilix). */
function fromScope<K extends keyof RequestCradle>(ctx: Context, key: K): RequestCradle[K] | undefined {
  try {
    return (ctx.state.scope?.cradle as RequestCradle | undefined)?.[key];
  } catch {
    return undefined;
  }
}

/**
 * The audit fields a request gives an entry: the actor (the request's identity unless the caller names
 * one, e.g. the account of a failed sign-in), `details.requestId`, the client's address per
 * AUDIT_IP_MODE (hash | full | none) and the caller's target.
 */
export async function requestAuditFields(
  ctx: Context,
  options: { target?: AuditTarget; actor?: { userId: string | null; tenantId?: string }; identity?: Identity } = {},
): Promise<RequestAuditFields> {
  const identity: Identity | undefined = options.identity ?? ctx.state.identity;
  const tenantId = options.actor?.tenantId ?? identity?.tenantId ?? 'default';
  const actor = { userId: options.actor ? options.actor.userId : (identity?.userId ?? null), tenantId };
  const details: RequestAuditFields['details'] = {};
  if (typeof ctx.state.requestId === 'string') details.requestId = ctx.state.requestId;
  // Everything the request gives is taken before the first await (its scope may end meanwhile).
  const secrets = fromScope(ctx, 'config')?.secrets ?? {};
  const ip = clientIp(ctx);
  const mode = await auditIpMode(fromScope(ctx, 'settings'), tenantId);
  if (ip && mode === 'full') details.ip = ip;
  if (ip && mode === 'hash') details.ipHash = hashAuditIp(ip, auditIpKey(secrets));
  if (options.target) details.target = options.target;
  return { actor, details };
}

/** An entry as a request handler gives it: the request's fields are added by recordRequestAudit. */
export type RequestAuditInput = Omit<AuditInput, 'actor'> & {
  target?: AuditTarget;
  actor?: { userId: string | null; tenantId?: string };
};

/**
 * Queues an entry for this request (AuditLog.record: never waits on the chain) with the request's
 * fields merged in. Auditing never fails the request: a problem is logged and the request goes on.
 */
export async function recordRequestAudit(ctx: Context, input: RequestAuditInput): Promise<void> {
  const audit = fromScope(ctx, 'audit');
  if (!audit) return;
  try {
    const { target, actor, details, ...rest } = input;
    const fields = await requestAuditFields(ctx, { target, actor });
    audit.record({ ...rest, actor: fields.actor, details: { ...fields.details, ...details } });
  } catch (err) {
    (ctx.state.logger as Logger | undefined)?.warn({ err, action: input.action }, 'audit entry not recorded');
  }
}

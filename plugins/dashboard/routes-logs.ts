import { z } from 'zod';
import { type AuditEntry, type AuditLog, defineRoute, type RouteDefinition } from '../../kernel/sdk.js';
import { cappedLimit } from './capped-limit.js';
import { gated } from './gated.js';

const tags = ['dashboard'];
/** Failed sign-ins from one address (its hash) within BURST_WINDOW_MS that make an incident. */
const BURST_THRESHOLD = 5;
const BURST_WINDOW_MS = 15 * 60 * 1000;
/** How far back lockouts and uses of revoked keys count as recent. */
const RECENT_MS = 24 * 3600 * 1000;
/** At most this many entries of one action are read per answer (pages of 100). */
const MAX_SCANNED = 2000;

/**
 * The tenant's entries of one action since a time, newest first: pages of the audit log matched on the
 * action (search), stopping at the first entry older than `since` or after MAX_SCANNED.
 */
async function entriesSince(audit: AuditLog, tenantId: string, action: string, since: number): Promise<AuditEntry[]> {
  const found: AuditEntry[] = [];
  for (let offset = 0; offset < MAX_SCANNED; offset += 100) {
    const { items } = await audit.list({ limit: 100, offset, search: action, tenantId });
    for (const e of items) {
      if (Date.parse(e.timestamp) < since) return found;
      if (e.action === action) found.push(e);
    }
    if (items.length < 100) break;
  }
  return found;
}

/** The address an entry came from as AUDIT_IP_MODE kept it: the hash, the address, or null (mode none). */
const sourceOf = (e: AuditEntry): string | null => {
  const d = e.details ?? {};
  return typeof d.ipHash === 'string' ? `hash:${d.ipHash}` : typeof d.ip === 'string' ? d.ip : null;
};

/**
 * Incidents derived from the audit trail: lockouts and uses of revoked keys or tokens in the last 24
 * hours, and bursts of failed sign-ins from one address within 15 minutes.
 */
async function auditIncidents(audit: AuditLog, tenantId: string, now = Date.now()) {
  const [lockouts, failures, revokedUses] = await Promise.all([
    entriesSince(audit, tenantId, 'auth.lockout.started', now - RECENT_MS),
    entriesSince(audit, tenantId, 'auth.sign-in.failed', now - BURST_WINDOW_MS),
    entriesSince(audit, tenantId, 'auth.revoked-token.used', now - RECENT_MS),
  ]);
  const bySource = new Map<string, { source: string; count: number; accounts: Set<string>; lastAt: string }>();
  for (const e of failures) {
    const source = sourceOf(e);
    if (!source) continue;
    const entry = bySource.get(source) ?? { source, count: 0, accounts: new Set<string>(), lastAt: e.timestamp };
    entry.count++;
    if (e.actor.userId) entry.accounts.add(e.actor.userId);
    if (e.timestamp > entry.lastAt) entry.lastAt = e.timestamp;
    bySource.set(source, entry);
  }
  const bursts = [...bySource.values()]
    .filter((b) => b.count >= BURST_THRESHOLD)
    .sort((a, b) => b.count - a.count)
    .slice(0, 20)
    .map((b) => ({ source: b.source, failedSignIns: b.count, accounts: b.accounts.size, lastAt: b.lastAt }));
  const brief = (e: AuditEntry) => ({ id: e.id, timestamp: e.timestamp, message: e.message, userId: e.actor.userId });
  return {
    failedSignInsLast15Minutes: failures.length,
    failedSignInBursts: bursts,
    recentLockouts: lockouts.slice(0, 20).map(brief),
    recentLockoutCount: lockouts.length,
    revokedTokenUses: revokedUses.slice(0, 20).map(brief),
    revokedTokenUseCount: revokedUses.length,
  };
}
const LEVELS = ['low', 'medium', 'high', 'critical'] as const;

const logItem = (e: AuditEntry) => ({
  id: e.id,
  timestamp: e.timestamp,
  level: e.level,
  action: e.action,
  message: e.message,
  domain: e.domain,
  operation: e.operation,
  outcome: e.outcome,
  userId: e.actor.userId,
  tenantId: e.actor.tenantId,
  durationMs: e.durationMs,
  // The spec's audit-entry fields (data operations): the plan, its mode, who, the counts and the hash chain.
  planId: e.planId,
  mode: e.mode,
  actor: e.actor,
  summary: e.summary,
  previousHash: e.previousHash,
  currentHash: e.currentHash,
});

export const logRoutes: RouteDefinition[] = [
  gated(
    'logs',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/logs',
      permission: 'dashboard:read',
      tags,
      request: {
        query: z.object({
          limit: cappedLimit(20, 100),
          page: z.coerce.number().int().min(1).max(100000).default(1),
          level: z.enum(LEVELS).optional(),
          search: z.string().max(200).optional(),
        }),
      },
      summary:
        'The audit log of the tenant, newest first, paginated (page is 1-based), filtered by level and by text in message and action',
      response: z.object({
        items: z.array(z.record(z.string(), z.unknown())),
        total: z.number().int(),
        page: z.number().int(),
        limit: z.number().int(),
        totalPages: z.number().int(),
      }),
      async handler({ scope, query, identity }) {
        const { items, total } = await scope.audit.list({
          limit: query.limit,
          offset: (query.page - 1) * query.limit,
          level: query.level,
          search: query.search || undefined,
          tenantId: identity.tenantId,
        });
        return { items: items.map(logItem), total, page: query.page, limit: query.limit, totalPages: Math.ceil(total / query.limit) };
      },
    }),
  ),
  gated(
    'audit-log',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/audit',
      permission: 'dashboard:read',
      tags,
      request: { query: z.object({ limit: cappedLimit(20, 100) }) },
      summary: 'Recent audit events of the tenant as a flat array, newest first',
      response: z.array(z.record(z.string(), z.unknown())),
      async handler({ scope, query, identity }) {
        const { items } = await scope.audit.list({ limit: query.limit, tenantId: identity.tenantId });
        return items.map(logItem);
      },
    }),
  ),
  defineRoute({
    method: 'GET',
    path: '/api/dashboard/system-messages',
    permission: 'dashboard:read',
    tags,
    request: { query: z.object({ limit: cappedLimit(10, 100) }) },
    summary: 'Messages derived from the audit log (medium and above first), with counts by severity',
    response: z.object({
      messages: z.array(z.record(z.string(), z.unknown())),
      bySeverity: z.record(z.string(), z.number()),
      total: z.number().int(),
    }),
    async handler({ scope, query, identity }) {
      const audit = scope.audit;
      const bySeverity: Record<string, number> = {};
      for (const level of LEVELS) bySeverity[level] = (await audit.list({ limit: 1, level, tenantId: identity.tenantId })).total;
      const { items } = await audit.list({ limit: 100, tenantId: identity.tenantId });
      const rank = (l: string) => LEVELS.length - LEVELS.indexOf(l as (typeof LEVELS)[number]);
      const messages = [...items]
        .sort((a, b) => rank(a.level) - rank(b.level) || b.id - a.id)
        .slice(0, query.limit)
        .map((e) => ({
          id: e.id,
          severity: e.level,
          title: e.action || `${e.domain} ${e.operation}`,
          message: e.message || `${e.domain} ${e.operation}: ${e.outcome}`,
          timestamp: e.timestamp,
        }));
      return { messages, bySeverity, total: Object.values(bySeverity).reduce((a, b) => a + b, 0) };
    },
  }),
  gated(
    'security',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/security',
      permission: 'dashboard:read',
      tags,
      request: {},
      summary:
        'Security figures: locked accounts, failed sign-ins, rate-limit hits, failed 2FA verifications, high-severity audit events, and the active threats they make',
      description:
        'Incidents come from the audit trail too: lockouts in the last 24 hours (recentLockouts), bursts of 5 or more failed sign-ins from one address within 15 minutes (failedSignInBursts; the address as AUDIT_IP_MODE keeps it: hash:<hmac> by default), and uses of revoked API keys or website tokens in the last 24 hours (revokedTokenUses).',
      async handler({ scope, identity }) {
        const users = await scope.users.summary(identity.tenantId);
        const http = scope.httpMetrics.snapshot();
        const audit = scope.audit;
        const high = (await audit.list({ limit: 1, level: 'high', tenantId: identity.tenantId })).total;
        const critical = (await audit.list({ limit: 1, level: 'critical', tenantId: identity.tenantId })).total;
        const failedTwoFactor = scope.dashboardState.failedTwoFactor;
        const incidents = await auditIncidents(audit, identity.tenantId);
        const threats: Array<{ type: string; severity: string; count: number; description: string }> = [];
        if (users.locked)
          threats.push({
            type: 'account-lockout',
            severity: 'medium',
            count: users.locked,
            description: 'Accounts locked after repeated failed sign-ins',
          });
        if (http.totals.rateLimited)
          threats.push({
            type: 'rate-limit',
            severity: 'medium',
            count: http.totals.rateLimited,
            description: 'Requests refused by the rate limiter (this instance)',
          });
        if (failedTwoFactor)
          threats.push({
            type: 'failed-2fa',
            severity: failedTwoFactor >= 10 ? 'high' : 'low',
            count: failedTwoFactor,
            description: 'Failed two-factor verifications (this instance)',
          });
        if (incidents.recentLockoutCount)
          threats.push({
            type: 'recent-lockouts',
            severity: incidents.recentLockoutCount >= 3 ? 'high' : 'medium',
            count: incidents.recentLockoutCount,
            description: `Account lockouts in the last 24 hours: ${incidents.recentLockouts
              .slice(0, 3)
              .map((l) => l.message)
              .join('; ')}`,
          });
        for (const burst of incidents.failedSignInBursts)
          threats.push({
            type: 'failed-sign-in-burst',
            severity: burst.failedSignIns >= 20 ? 'critical' : 'high',
            count: burst.failedSignIns,
            description: `${burst.failedSignIns} failed sign-ins from one address (${burst.source}) within 15 minutes, on ${burst.accounts} known account(s)`,
          });
        if (incidents.revokedTokenUseCount)
          threats.push({
            type: 'revoked-token-use',
            severity: 'high',
            count: incidents.revokedTokenUseCount,
            description: 'Revoked API keys or website tokens presented in the last 24 hours (the value is still in circulation)',
          });
        if (critical)
          threats.push({ type: 'critical-audit-events', severity: 'critical', count: critical, description: 'Critical audit events' });
        const order = ['low', 'medium', 'high', 'critical'];
        const threatLevel = threats.reduce((max, t) => (order.indexOf(t.severity) > order.indexOf(max) ? t.severity : max), 'low');
        return {
          lockedAccounts: users.locked,
          blockedAccounts: users.blocked,
          failedLoginAttempts: users.failedAttempts,
          rateLimitHits: http.totals.rateLimited,
          failedTwoFactor,
          highSeverityEvents: high + critical,
          twoFactorCoverage: users.total ? users.twoFactorEnabled / users.total : 0,
          threatLevel,
          activeThreats: threats,
          ...incidents,
          timestamp: new Date().toISOString(),
        };
      },
    }),
  ),
  gated(
    'scim-status',
    defineRoute({
      method: 'GET',
      path: '/api/dashboard/scim',
      permission: 'dashboard:read',
      tags,
      request: {},
      summary: "Provisioning health derived from the tenant's user records (paid widget scim-status)",
      async handler({ scope, identity }) {
        const u = await scope.users.summary(identity.tenantId);
        const troubled = u.blocked + u.locked;
        const status = u.total === 0 ? 'empty' : troubled / u.total > 0.1 ? 'degraded' : 'healthy';
        return {
          status,
          tenantId: identity.tenantId,
          totalUsers: u.total,
          activeUsers: u.active,
          blockedUsers: u.blocked,
          lockedUsers: u.locked,
          provisionedLast30Days: u.createdLast30Days,
          twoFactorEnabled: u.twoFactorEnabled,
          byRole: u.byRole,
          checkedAt: new Date().toISOString(),
        };
      },
    }),
  ),
];

import { QueryTypes } from 'sequelize';
import type { z } from 'zod';
import type { Session } from './models/session.js';
import type { sessionViewSchema } from './routes.js';

/** A session as its route answers it: the route's response schema (routes.ts) is the one definition. */
export type SessionView = z.output<typeof sessionViewSchema>;

/** A user's online summary (the dashboard's online users). */
export interface OnlineUser {
  userId: string;
  sessions: number;
  lastActiveAt: string;
  since: string;
  expiresAt: string;
}

const OS: Array<[RegExp, string]> = [
  [/windows/i, 'Windows'],
  [/iphone|ipad|ios/i, 'iOS'],
  [/android/i, 'Android'],
  [/mac os/i, 'macOS'],
  [/linux/i, 'Linux'],
];
const APPS: Array<[RegExp, string]> = [
  [/edg\//i, 'Edge'],
  [/chrome\//i, 'Chrome'],
  [/firefox\//i, 'Firefox'],
  [/safari\//i, 'Safari'],
  [/curl|node|undici/i, 'API client'],
];
const firstMatch = (userAgent: string, table: Array<[RegExp, string]>, otherwise: string) =>
  table.find(([pattern]) => pattern.test(userAgent))?.[1] ?? otherwise;

/** "Chrome on macOS", from a user agent. */
export function deviceOf(userAgent: string): string {
  if (!userAgent) return 'unknown';
  return `${firstMatch(userAgent, APPS, 'browser')} on ${firstMatch(userAgent, OS, 'other')}`;
}

export function sessionView(s: Session, currentHash: string | null): SessionView {
  return {
    _id: s.public_id,
    current: s.id_hash === currentHash,
    userAgent: s.user_agent,
    ip: s.ip,
    device: deviceOf(s.user_agent),
    createdAt: new Date(Number(s.created_at)).toISOString(),
    lastActiveAt: new Date(Number(s.last_active_at)).toISOString(),
    expiresAt: new Date(Number(s.expires_at)).toISOString(),
  };
}

/**
 * Per user: the session count, the last activity, and since when, estimated per the spec as expiry minus
 * the session TTL (`ttlMs`).
 */
export function onlineUsers(rows: Session[], ttlMs: number): OnlineUser[] {
  const byUser = new Map<string, { userId: string; sessions: number; lastActive: number; since: number; expires: number }>();
  for (const r of rows) {
    const since = Math.max(Number(r.expires_at) - ttlMs, Number(r.created_at));
    const u = byUser.get(r.user_id) ?? { userId: r.user_id, sessions: 0, lastActive: 0, since, expires: 0 };
    u.sessions++;
    u.lastActive = Math.max(u.lastActive, Number(r.last_active_at));
    u.since = Math.min(u.since, since);
    u.expires = Math.max(u.expires, Number(r.expires_at));
    byUser.set(r.user_id, u);
  }
  return [...byUser.values()].map((u) => ({
    userId: u.userId,
    sessions: u.sessions,
    lastActiveAt: new Date(u.lastActive).toISOString(),
    since: new Date(u.since).toISOString(),
    expiresAt: new Date(u.expires).toISOString(),
  }));
}

/** The session hashes (cache keys) of the tenant's users holding a role. */
export async function sessionHashesOfRole(
  Session: typeof import('./models/session.js').Session,
  tenantId: string,
  role: string,
): Promise<string[]> {
  const rows = await Session.sequelize!.query<{ h: string }>(
    'SELECT s.id_hash AS h FROM auth_sessions s JOIN auth_users u ON u.id = s.user_id WHERE u.tenant_id = ? AND u.role = ?',
    { replacements: [tenantId, role], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.h);
}

import { createHash } from 'node:crypto';
import { Model } from 'sequelize';
import { stringify } from 'safe-stable-stringify';
import { z } from 'zod';
import { ValidationError } from './errors.js';

/**
 * The audit entry: its input schema, its row in `audit_log`, and its hash in the chain (kernel/audit.ts
 * holds the log that appends, verifies and prunes them).
 */
export const counts = z.object({
  created: z.number().int().min(0).default(0),
  updated: z.number().int().min(0).default(0),
  deleted: z.number().int().min(0).default(0),
  skipped: z.number().int().min(0).default(0),
  failed: z.number().int().min(0).default(0),
});

/** An audit entry as callers give it: the spec's fields plus level/action/message for the dashboard. */
export const auditInputSchema = z.object({
  domain: z.string().min(1).max(64),
  operation: z.string().min(1).max(64),
  planId: z.string().max(64).nullish(),
  mode: z.enum(['add', 'merge', 'mirror', 'replace']).nullish(),
  actor: z.object({ userId: z.string().nullable(), tenantId: z.string().default('default') }),
  outcome: z.enum(['success', 'partial', 'failure', 'rollback']),
  summary: counts.prefault({}),
  durationMs: z.number().int().min(0).default(0),
  level: z.enum(['low', 'medium', 'high', 'critical']).default('low'),
  action: z.string().max(191).optional(),
  message: z.string().max(10000).default(''),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type AuditInput = z.input<typeof auditInputSchema>;

export interface AuditEntry {
  id: number;
  timestamp: string;
  domain: string;
  operation: string;
  planId: string | null;
  mode: string | null;
  actor: { userId: string | null; tenantId: string };
  outcome: string;
  summary: z.output<typeof counts>;
  durationMs: number;
  level: string;
  action: string;
  message: string;
  details: Record<string, unknown> | null;
  previousHash: string;
  currentHash: string;
}

/** What an observer of the audit log hears about each entry given to append() or record(). */
export type AuditObserver = (entry: { action: string; outcome: string; tenantId: string }) => void;

export const GENESIS_HASH = '0'.repeat(64);

export type ParsedInput = z.output<typeof auditInputSchema>;

export function parseInput(input: AuditInput): ParsedInput {
  const parsed = auditInputSchema.safeParse(input);
  if (!parsed.success) {
    throw new ValidationError(
      'Invalid audit entry',
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  }
  return parsed.data;
}

export class AuditRow extends Model {
  declare id: number;
  declare timestamp: string;
  declare tenant_id: string;
  declare domain: string;
  declare operation: string;
  declare plan_id: string | null;
  declare mode: string | null;
  declare actor: string;
  declare outcome: string;
  declare summary: string;
  declare duration_ms: number;
  declare level: string;
  declare action: string;
  declare message: string;
  declare details: string | null;
  declare previous_hash: string;
  declare current_hash: string;
}

export function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    timestamp: row.timestamp,
    domain: row.domain,
    operation: row.operation,
    planId: row.plan_id,
    mode: row.mode,
    actor: JSON.parse(row.actor),
    outcome: row.outcome,
    summary: JSON.parse(row.summary),
    durationMs: row.duration_ms,
    level: row.level,
    action: row.action,
    message: row.message,
    details: row.details ? JSON.parse(row.details) : null,
    previousHash: row.previous_hash,
    currentHash: row.current_hash,
  };
}

/** The hash of an entry: SHA-256 over the previous hash and the canonical JSON of every other field. */
export function hashEntry(entry: Omit<AuditEntry, 'id' | 'currentHash'>): string {
  const { previousHash, ...fields } = entry;
  return createHash('sha256').update(previousHash).update(stringify(fields)!).digest('hex');
}

export interface AuditVerifyResult {
  valid: boolean;
  checked: number;
  /** The first entry whose hash or link does not hold, and why. */
  firstInvalid?: { id: number; reason: 'hash-mismatch' | 'chain-broken' };
  /** After a prune: the anchor the walk started from instead of the genesis hash. */
  anchor?: { id: number; hash: string };
}

export interface AuditPruneResult {
  /** Entries removed (an earlier anchor replaced by the new one is not counted). */
  deleted: number;
  /** The new anchor: the newest pruned entry's row, whose currentHash the first kept entry links to. */
  anchor: { id: number; hash: string } | null;
}

/**
 * Marks the anchor row. No appended entry can carry it: input levels are low..critical. Only the
 * first row of the table may be an anchor; an anchor row anywhere else fails verify() (hash-mismatch).
 */
export const ANCHOR_LEVEL = 'anchor';

import { createHash } from 'node:crypto';
import stringify from 'safe-stable-stringify';
import { z } from 'zod';
import type { Risk } from '../data-ops/public.js';

/**
 * The format of one data migration, the same whether a plugin declares it (registry `dataMigrations`)
 * or a file in <data>/migrations/*.json holds it. Steps run in order over the entries of the tenant;
 * a step names its collection or uses the migration's `collection`. Fields must already exist in the
 * collection's schema: a data migration changes values, never schemas (add the new field with PATCH
 * /api/collections/:name first, drop the old one afterwards).
 */
export const MIGRATION_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;

const collectionName = z.string().regex(/^[a-z][a-z0-9_]{0,47}$/, 'a collection name');
const fieldName = z.string().min(1).max(64);
/** A JSON value (what an entry field holds over the API). */
const jsonValue: z.ZodType<unknown> = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.unknown()),
  z.record(z.string(), z.unknown()),
]);
/** Only entries whose fields (or `status` / `slug`) equal these values; omitted: every entry. */
const where = z.record(fieldName, jsonValue).optional();

const base = { collection: collectionName.optional(), where };

export const stepSchema = z.discriminatedUnion('op', [
  /** Value of `from` moves to `to` (overwriting it); `from` becomes null. */
  z.object({ op: z.literal('renameField'), ...base, from: fieldName, to: fieldName }).strict(),
  /** Where `field` is null: set it to `value`, or to the value of `fromField`. */
  z
    .object({ op: z.literal('backfill'), ...base, field: fieldName, value: jsonValue.optional(), fromField: fieldName.optional() })
    .strict()
    .refine((s) => (s.value === undefined) !== (s.fromField === undefined), 'backfill takes exactly one of value and fromField'),
  /** Replaces values: {old: new}; keys compare with the value as a string; a new value null drops it. */
  z.object({ op: z.literal('mapValues'), ...base, field: fieldName, values: z.record(z.string(), jsonValue) }).strict(),
  z.object({ op: z.literal('trim'), ...base, field: fieldName }).strict(),
  z.object({ op: z.literal('lowercase'), ...base, field: fieldName }).strict(),
  /** Converts `field` to a number or a string, written to `into` (default: the field itself). Unconvertible value: the step fails. */
  z.object({ op: z.literal('cast'), ...base, field: fieldName, to: z.enum(['number', 'string']), into: fieldName.optional() }).strict(),
  /** Moves entries (id, slug, status, revisions kept) to another collection; fields map by name, `fields` renames them. */
  z.object({ op: z.literal('move'), ...base, to: collectionName, fields: z.record(fieldName, fieldName).optional() }).strict(),
]);
export type MigrationStep = z.infer<typeof stepSchema>;

export const migrationSchema = z
  .object({
    id: z.string().regex(MIGRATION_ID, 'lowercase letters, digits, ".", "_" and "-" (e.g. 2026-11-25-rename-title)'),
    description: z.string().max(1000).default(''),
    collection: collectionName.optional(),
    steps: z.array(stepSchema).min(1).max(50),
  })
  .strict()
  .superRefine((m, ctx) => {
    m.steps.forEach((s, i) => {
      if (!s.collection && !m.collection)
        ctx.addIssue({
          code: 'custom',
          path: ['steps', i, 'collection'],
          message: 'the step names no collection and the migration has no default collection',
        });
    });
  });
export type MigrationDefinition = z.infer<typeof migrationSchema>;

/** A declared migration, checked, with where it came from. */
export interface LoadedMigration {
  definition: MigrationDefinition;
  /** `plugin:<id>` or `file:<name>.json`. */
  source: string;
  checksum: string;
  risk: Risk;
}

/** The collection a step works on. */
export const stepCollection = (m: MigrationDefinition, s: MigrationStep): string => (s.collection ?? m.collection)!;

/** Checksum of what the migration does (id, collection, steps; not the description), canonical JSON. */
export function definitionChecksum(m: MigrationDefinition): string {
  return createHash('sha256')
    .update(stringify({ id: m.id, collection: m.collection ?? null, steps: m.steps }) ?? '')
    .digest('hex');
}

const RANK: Record<Risk, number> = { safe: 0, warning: 1, destructive: 2 };
export const maxRisk = (a: Risk, b: Risk): Risk => (RANK[b] > RANK[a] ? b : a);

/** Risk from the steps alone: backfills are additive (safe); rewrites are warnings; moves and value drops destructive. */
export function stepRisk(s: MigrationStep): Risk {
  switch (s.op) {
    case 'backfill':
      return 'safe';
    case 'move':
      return 'destructive';
    case 'mapValues':
      return Object.values(s.values).some((v) => v === null) ? 'destructive' : 'warning';
    default:
      return 'warning';
  }
}

export const migrationRisk = (m: MigrationDefinition): Risk => m.steps.reduce<Risk>((r, s) => maxRisk(r, stepRisk(s)), 'safe');

/** A short human name of a step for messages. */
export function describeStep(m: MigrationDefinition, s: MigrationStep, index: number): string {
  const c = stepCollection(m, s);
  const what =
    s.op === 'renameField'
      ? `${s.from} -> ${s.to}`
      : s.op === 'move'
        ? `-> ${s.to}`
        : s.op === 'cast'
          ? `${s.field} -> ${s.to}${s.into ? ` into ${s.into}` : ''}`
          : s.field;
  return `step ${index + 1} (${s.op} ${c}.${what})`;
}

export function load(input: unknown, source: string): { ok: true; migration: LoadedMigration } | { ok: false; message: string } {
  const parsed = migrationSchema.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return { ok: false, message: issues };
  }
  const definition = parsed.data;
  return { ok: true, migration: { definition, source, checksum: definitionChecksum(definition), risk: migrationRisk(definition) } };
}

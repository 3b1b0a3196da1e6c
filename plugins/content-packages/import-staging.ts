/**
 * A plan's decisions live in files next to the upload, not in the plan table: one NDJSON file per
 * operation (at most STAGE_CHUNK lines), `<upload>/plans/<stagingId>/<n>.ndjson`. The stored plan keeps
 * only small operations naming their file; apply reads one file per operation.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataOperation } from '../data-ops/public.js';

/** Entities per operation (and per file). */
export const STAGE_CHUNK = 500;

/** A created or updated entry as apply writes it (values in target API form; media not yet in the target: {$media: <source id>}). */
export interface StagedEntry {
  id: string;
  syncId: string;
  slug: string;
  status: string;
  /** Creates: epoch ms (the package's createdAt, else now). */
  createdAt?: number;
  values: Record<string, unknown>;
  /** The entry's versions in other locales (replacing those here); absent: the package carries none, those here stay. */
  locales?: Record<string, { status: string; fields: Record<string, unknown> }>;
  /** When each locale's values last changed (epoch ms; the package's `localeUpdatedAt`): kept by the import. */
  localeUpdatedAt?: Record<string, number>;
  checksum: string;
  sourceId: string;
  /** Whether the ledger and the source map record it (not for copies). */
  record: boolean;
}
/** A mirror delete, or an unchanged entry whose agreement is recorded. */
export interface StagedRef {
  id: string;
  syncId: string;
  checksum?: string;
  sourceId?: string;
}
export interface StagedMedia {
  sourceId: string;
  /** Relative to the package root. */
  file: string;
  filename: string;
  size: number;
}

export type ImportPayload =
  | { kind: 'collection'; name: string; label?: string; singular?: string; fields: unknown[] }
  | { kind: 'component'; name: string; label: string; fields: unknown[] }
  | { kind: 'media'; staging: string; file: string }
  | { kind: 'entries'; staging: string; file: string; collection: string; action: 'create' | 'update' | 'delete' | 'record' };

export const stagingDir = (uploadDir: string, staging: string) => join(uploadDir, 'plans', staging);

export async function readStaged<T>(uploadDir: string, staging: string, file: string): Promise<T[]> {
  if (!/^[0-9a-f-]{36}$/.test(staging) || !/^[0-9]+\.ndjson$/.test(file)) throw new Error('unusable staging reference');
  const text = await readFile(join(stagingDir(uploadDir, staging), file), 'utf8');
  return text
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as T);
}

/** Collects the plan's operations, writing each chunk of lines to its file. */
export class StagingWriter {
  readonly id = randomUUID();
  private n = 0;
  private readonly buffers = new Map<string, { collection: string; action: 'create' | 'update' | 'delete' | 'record'; lines: string[] }>();
  /** Entry operations in the order they were flushed, grouped by collection at the end. */
  private readonly ops: Array<DataOperation<ImportPayload>> = [];

  constructor(private readonly uploadDir: string) {}

  get dir(): string {
    return stagingDir(this.uploadDir, this.id);
  }

  async open(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  async writeFile(lines: unknown[]): Promise<string> {
    const file = `${this.n++}.ndjson`;
    await writeFile(join(this.dir, file), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return file;
  }

  async add(collection: string, action: 'create' | 'update' | 'delete' | 'record', line: StagedEntry | StagedRef): Promise<void> {
    const key = `${collection}\0${action}`;
    let b = this.buffers.get(key);
    if (!b) this.buffers.set(key, (b = { collection, action, lines: [] }));
    b.lines.push(JSON.stringify(line));
    if (b.lines.length >= STAGE_CHUNK) await this.flush(key);
  }

  private async flush(key: string): Promise<void> {
    const b = this.buffers.get(key);
    if (!b?.lines.length) return;
    const file = `${this.n++}.ndjson`;
    await writeFile(join(this.dir, file), b.lines.join('\n') + '\n');
    const count = b.lines.length;
    b.lines = [];
    this.ops.push({
      action: b.action === 'record' ? 'update' : b.action,
      type: b.action === 'record' ? 'ledger' : 'entry',
      target: b.collection,
      // Recording agreed checksums of unchanged entries changes no entry.
      count: b.action === 'record' ? 0 : count,
      payload: { kind: 'entries', staging: this.id, file, collection: b.collection, action: b.action },
    });
  }

  /** Every operation, per collection in `order`: deletes, updates, creates, then the ledger records. */
  async finish(order: string[]): Promise<Array<DataOperation<ImportPayload>>> {
    for (const key of [...this.buffers.keys()]) await this.flush(key);
    const rank = { delete: 0, update: 1, create: 2, record: 3 } as const;
    const pos = (c: string) => (order.indexOf(c) < 0 ? order.length : order.indexOf(c));
    return this.ops
      .map((op, i) => ({ op, i }))
      .sort((a, b) => {
        const pa = a.op.payload as Extract<ImportPayload, { kind: 'entries' }>;
        const pb = b.op.payload as Extract<ImportPayload, { kind: 'entries' }>;
        return pos(pa.collection) - pos(pb.collection) || rank[pa.action] - rank[pb.action] || a.i - b.i;
      })
      .map((x) => x.op);
  }
}

/**
 * The media of a package in an import plan: records of media/manifest.ndjson matched by SHA-256 against
 * the tenant's media records; missing ones whose file is in the package are carried over by the plan.
 */
import { join } from 'node:path';
import { QueryTypes, type Sequelize } from 'sequelize';
import { z } from 'zod';
import type { StagedMedia } from './import-staging.js';
import type { Notes } from './plan-notes.js';
import { readNdjson, safeRelativePath } from './package-reader.js';
import type { PackageManifest, PackageMedia } from './public.js';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const mediaSchema = z
  .object({
    id: z.string().min(1).max(64),
    filename: z.string().min(1).max(255),
    mimeType: z.string().max(255).optional(),
    size: z.number().int().min(0),
    sha256: hex64,
    file: z.string().max(1024).optional(),
    path: z.string().max(2048).optional(),
  })
  .passthrough();

export interface MediaPlan {
  /** Target media id, 'pending' (carried over by the plan), or null (neither here nor in the package). */
  resolve(sourceId: string): string | 'pending' | null;
  staged(sourceId: string): StagedMedia | null;
  /** The package's media record whose source path (what `/files/<path>` named there) this is, or null. */
  sourceOfPath(path: string): string | null;
  /** The storage path here of a media record `resolve` found by SHA-256, or null. */
  targetPath(targetId: string): string | null;
}

export async function mediaPlan(
  sequelize: Sequelize,
  root: string,
  m: PackageManifest,
  tenantId: string,
  notes: Notes,
): Promise<MediaPlan> {
  const records = new Map<string, PackageMedia>();
  const listed = new Set(m.files.map((f) => f.path));
  if (m.media.records > 0 && safeRelativePath(m.media.file)) {
    let n = 0;
    for await (const { line, value } of readNdjson(join(root, m.media.file), (l, p) => notes.warn(`${m.media.file} line ${l}: ${p}`))) {
      if (++n > 1_000_000) break;
      const parsed = mediaSchema.safeParse(value);
      if (!parsed.success) {
        notes.warn(`${m.media.file} line ${line}: not a media record`);
        continue;
      }
      records.set(parsed.data.id, parsed.data as PackageMedia);
    }
  }
  const byPath = new Map<string, string>();
  for (const r of records.values()) if (typeof r.path === 'string' && !byPath.has(r.path)) byPath.set(r.path, r.id);
  const bySum = new Map<string, string>();
  const pathOf = new Map<string, string>();
  const sums = [...new Set([...records.values()].map((r) => r.sha256))];
  for (let i = 0; i < sums.length; i += 500) {
    try {
      const rows = await sequelize.query<{ id: string; checksum: string; path: string }>(
        'SELECT id, checksum, path FROM media_items WHERE tenant_id = :tenantId AND deleted_at IS NULL AND checksum IN (:sums) ORDER BY created_at ASC',
        { type: QueryTypes.SELECT, replacements: { tenantId, sums: sums.slice(i, i + 500) } },
      );
      for (const r of rows)
        if (!bySum.has(r.checksum)) {
          bySum.set(r.checksum, String(r.id));
          pathOf.set(String(r.id), String(r.path));
        }
    } catch {
      break; // no media plugin tables
    }
  }
  const fileOf = (r: PackageMedia) => (r.file && safeRelativePath(r.file) && listed.has(r.file) ? r.file : null);
  return {
    resolve(sourceId) {
      const r = records.get(sourceId);
      if (!r) return null;
      const found = bySum.get(r.sha256);
      if (found) return found;
      return fileOf(r) ? 'pending' : null;
    },
    sourceOfPath: (path) => byPath.get(path) ?? null,
    targetPath: (targetId) => pathOf.get(targetId) ?? null,
    staged(sourceId) {
      const r = records.get(sourceId);
      const file = r && fileOf(r);
      return r && file ? { sourceId, file, filename: r.filename, size: r.size } : null;
    },
  };
}

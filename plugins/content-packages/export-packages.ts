/**
 * Built package archives: the files `<root>/<packageId>.svelty-package` and their rows in
 * cms_content_exports (tenant, plan, size, SHA-256), looked up for downloads, and retention: packages
 * older than retentionHours and the oldest beyond maxPackages are deleted (rows and files), leftover
 * `.partial` files and folders of crashed builds after retentionHours, archives without a row after an hour.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Op, QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from '../../kernel/sdk.js';
import { PACKAGE_SUFFIX } from './public.js';

/** `20261125T114003123Z-1a2b3c4d`: sorts by creation time; the only ids a path is built from. */
export const PACKAGE_ID = /^\d{8}T\d{9}Z-[0-9a-f]{8}$/;
const TABLE = 'cms_content_exports';
/** Rows deleted per statement while pruning. */
const PRUNE_CHUNK = 200;
/** An archive without a row is deleted after this (a build registers its row right after the rename). */
const ORPHAN_MS = 3600_000;

export function newPackageId(): string {
  const t = new Date().toISOString().replace(/[-:.]/g, '');
  return `${t.slice(0, 15)}${t.slice(15, 18)}Z-${randomBytes(4).toString('hex')}`;
}

export interface PackageRow {
  packageId: string;
  tenantId: string;
  planId: string | null;
  peer: string | null;
  fileName: string;
  size: number;
  sha256: string;
  entries: number;
  createdBy: string | null;
  createdAt: number;
}

const fromRow = (r: Record<string, unknown>): PackageRow => ({
  packageId: String(r.package_id),
  tenantId: String(r.tenant_id),
  planId: r.plan_id == null ? null : String(r.plan_id),
  peer: r.peer == null ? null : String(r.peer),
  fileName: String(r.file_name),
  size: Number(r.size),
  sha256: String(r.sha256),
  entries: Number(r.entries),
  createdBy: r.created_by == null ? null : String(r.created_by),
  createdAt: Number(r.created_at),
});

export class ExportPackages {
  constructor(
    private readonly sequelize: () => Sequelize,
    readonly root: string,
    private readonly logger: () => Logger | undefined,
  ) {}

  archivePath(packageId: string): string {
    if (!PACKAGE_ID.test(packageId)) throw new Error(`Not a package id: ${packageId.slice(0, 80)}`);
    return join(this.root, packageId + PACKAGE_SUFFIX);
  }

  async insert(row: PackageRow): Promise<void> {
    await this.sequelize()
      .getQueryInterface()
      .bulkInsert(TABLE, [
        {
          package_id: row.packageId,
          tenant_id: row.tenantId,
          plan_id: row.planId,
          peer: row.peer,
          file_name: row.fileName,
          size: row.size,
          sha256: row.sha256,
          entries: row.entries,
          created_by: row.createdBy,
          created_at: row.createdAt,
        },
      ]);
  }

  async byPlan(tenantId: string, planId: string): Promise<PackageRow | null> {
    const rows = await this.sequelize().query<Record<string, unknown>>(
      `SELECT * FROM ${TABLE} WHERE tenant_id = ? AND plan_id = ? ORDER BY created_at DESC LIMIT 1`,
      { type: QueryTypes.SELECT, replacements: [tenantId, planId] },
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** The package of an inline run by its id (the `jobId` an inline run answers), in the tenant. */
  async byPackage(tenantId: string, packageId: string): Promise<PackageRow | null> {
    if (!PACKAGE_ID.test(packageId)) return null;
    const rows = await this.sequelize().query<Record<string, unknown>>(`SELECT * FROM ${TABLE} WHERE tenant_id = ? AND package_id = ?`, {
      type: QueryTypes.SELECT,
      replacements: [tenantId, packageId],
    });
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** Deletes a package (row and file); used by undo and retention. */
  async remove(packageId: string): Promise<void> {
    await this.sequelize().getQueryInterface().bulkDelete(TABLE, { package_id: packageId });
    await rm(this.archivePath(packageId), { force: true });
  }

  /** Retention; never throws (failures are logged). Returns the packageIds deleted. */
  async prune(options: { retentionHours: number; maxPackages: number }): Promise<string[]> {
    const removed: string[] = [];
    try {
      const sequelize = this.sequelize();
      const qi = sequelize.getQueryInterface();
      const cutoff = Date.now() - options.retentionHours * 3600_000;
      const drop = async (ids: string[]) => {
        if (!ids.length) return;
        await qi.bulkDelete(TABLE, { package_id: { [Op.in]: ids } });
        for (const id of ids) {
          if (PACKAGE_ID.test(id)) await rm(this.archivePath(id), { force: true });
          removed.push(id);
        }
      };
      // Expired, a chunk at a time.
      for (let round = 0; round < 1000; round++) {
        const old = await sequelize.query<{ package_id: string }>(
          `SELECT package_id FROM ${TABLE} WHERE created_at < ? ORDER BY created_at LIMIT ${PRUNE_CHUNK}`,
          { type: QueryTypes.SELECT, replacements: [cutoff] },
        );
        await drop(old.map((r) => r.package_id));
        if (old.length < PRUNE_CHUNK) break;
      }
      // Beyond the count.
      for (let round = 0; round < 1000; round++) {
        const extra = await sequelize.query<{ package_id: string }>(
          `SELECT package_id FROM ${TABLE} ORDER BY created_at DESC, package_id DESC LIMIT ${PRUNE_CHUNK} OFFSET ${options.maxPackages}`,
          { type: QueryTypes.SELECT },
        );
        await drop(extra.map((r) => r.package_id));
        if (extra.length < PRUNE_CHUNK) break;
      }
      // Files: partial leftovers of crashed builds, archives whose row is gone (pruned by another instance).
      if (existsSync(this.root)) {
        const names = await readdir(this.root);
        const archives = names.filter((n) => n.endsWith(PACKAGE_SUFFIX) && PACKAGE_ID.test(n.slice(0, -PACKAGE_SUFFIX.length)));
        const known = new Set<string>();
        for (let i = 0; i < archives.length; i += PRUNE_CHUNK) {
          const ids = archives.slice(i, i + PRUNE_CHUNK).map((n) => n.slice(0, -PACKAGE_SUFFIX.length));
          const rows = await sequelize.query<{ package_id: string }>(`SELECT package_id FROM ${TABLE} WHERE package_id IN (?)`, {
            type: QueryTypes.SELECT,
            replacements: [ids],
          });
          for (const r of rows) known.add(r.package_id);
        }
        for (const n of names) {
          const id = n.endsWith(PACKAGE_SUFFIX) ? n.slice(0, -PACKAGE_SUFFIX.length) : null;
          const partial = n.endsWith('.partial') && PACKAGE_ID.test(n.split('.')[0]!);
          if (!partial && !(id && PACKAGE_ID.test(id) && !known.has(id))) continue;
          const s = await stat(join(this.root, n)).catch(() => null);
          if (!s) continue;
          const age = Date.now() - s.mtimeMs;
          if (partial ? age > options.retentionHours * 3600_000 : age > ORPHAN_MS) {
            await rm(join(this.root, n), { recursive: true, force: true });
            if (id) removed.push(id);
          }
        }
      }
    } catch (err) {
      this.logger()?.warn({ err }, 'content package retention failed');
    }
    return removed;
  }
}

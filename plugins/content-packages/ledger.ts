/**
 * This installation's stable id and the per-peer ledger of agreed checksums (tables in migrations.ts).
 * Reads and writes take an optional transaction so an import records its bases in the apply
 * transaction (a rollback takes them back). Batches of LEDGER_CHUNK rows per statement.
 */
import { randomUUID } from 'node:crypto';
import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';

const LEDGER_CHUNK = 500;

export class ContentLedger {
  private installation: Promise<string> | null = null;

  constructor(private readonly sequelize: Sequelize) {}

  /** Created once (the first caller on any instance wins the insert; the others read it). */
  installationId(): Promise<string> {
    this.installation ??= (async () => {
      const read = async () =>
        (
          await this.sequelize.query<{ value: string }>(`SELECT value FROM cms_installation WHERE name = 'installation_id'`, {
            type: QueryTypes.SELECT,
          })
        )[0]?.value;
      const found = await read();
      if (found) return found;
      try {
        await this.sequelize.query(`INSERT INTO cms_installation (name, value, created_at) VALUES ('installation_id', ?, ?)`, {
          replacements: [randomUUID(), Date.now()],
        });
      } catch {
        // another instance inserted it first
      }
      const id = await read();
      if (!id) throw new Error('cms_installation has no installation_id');
      return id;
    })().catch((err) => {
      this.installation = null;
      throw err;
    });
    return this.installation;
  }

  /** syncId -> agreed checksum, for these sync ids of one collection. */
  async bases(
    tenantId: string,
    peer: string,
    collection: string,
    syncIds: string[],
    transaction?: Transaction,
  ): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < syncIds.length; i += LEDGER_CHUNK) {
      const rows = await this.sequelize.query<{ sync_id: string; checksum: string }>(
        'SELECT sync_id, checksum FROM cms_content_ledger WHERE tenant_id = :tenantId AND peer = :peer AND collection = :collection AND sync_id IN (:ids)',
        {
          type: QueryTypes.SELECT,
          replacements: { tenantId, peer, collection, ids: syncIds.slice(i, i + LEDGER_CHUNK) },
          transaction,
        },
      );
      for (const r of rows) out.set(r.sync_id, r.checksum);
    }
    return out;
  }

  /** Upserts the agreed checksums (delete + insert per chunk: portable across SQLite and MariaDB). */
  async record(
    tenantId: string,
    peer: string,
    items: Array<{ collection: string; syncId: string; checksum: string }>,
    transaction?: Transaction,
  ): Promise<void> {
    const qi = this.sequelize.getQueryInterface();
    const now = Date.now();
    for (let i = 0; i < items.length; i += LEDGER_CHUNK) {
      const chunk = items.slice(i, i + LEDGER_CHUNK);
      const byCollection = new Map<string, string[]>();
      for (const it of chunk) byCollection.set(it.collection, [...(byCollection.get(it.collection) ?? []), it.syncId]);
      for (const [collection, ids] of byCollection)
        await qi.bulkDelete('cms_content_ledger', { tenant_id: tenantId, peer, collection, sync_id: { [Op.in]: ids } }, { transaction });
      await qi.bulkInsert(
        'cms_content_ledger',
        chunk.map((it) => ({
          tenant_id: tenantId,
          peer,
          collection: it.collection,
          sync_id: it.syncId,
          checksum: it.checksum,
          updated_at: now,
        })),
        { transaction },
      );
    }
  }

  /** Forgets entries deleted on both sides (mirror deletes). */
  async forget(tenantId: string, peer: string, collection: string, syncIds: string[], transaction?: Transaction): Promise<void> {
    const qi = this.sequelize.getQueryInterface();
    for (let i = 0; i < syncIds.length; i += LEDGER_CHUNK)
      await qi.bulkDelete(
        'cms_content_ledger',
        { tenant_id: tenantId, peer, collection, sync_id: { [Op.in]: syncIds.slice(i, i + LEDGER_CHUNK) } },
        { transaction },
      );
  }
}

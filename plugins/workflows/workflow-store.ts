import { randomUUID } from 'node:crypto';
import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { ConflictError, NotFoundError } from '../../kernel/sdk.js';
import type { WorkflowStage, WorkflowView } from './public.js';

/** A workflow as stored (with its tenant). */
export interface WorkflowRecord extends WorkflowView {
  tenantId: string;
}

/** What a workflow is made of (checked by the service before it is stored). */
export interface WorkflowInput {
  name: string;
  collections: string[];
  stages: WorkflowStage[];
  publishStage?: string;
}

interface WorkflowRow {
  id: string;
  tenant_id: string;
  name: string;
  stages: string;
  publish_stage: string | null;
  created_at: number | string;
  updated_at: number | string;
}

/** Ids per IN list of a stage read. */
const CHUNK = 500;

function recordOf(row: WorkflowRow, collections: string[]): WorkflowRecord {
  return {
    _id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    collections,
    stages: JSON.parse(row.stages) as WorkflowStage[],
    ...(row.publish_stage ? { publishStage: row.publish_stage } : {}),
    createdAt: new Date(Number(row.created_at)).toISOString(),
    updatedAt: new Date(Number(row.updated_at)).toISOString(),
  };
}

/** The tables of migrations.ts: a tenant's workflows, the collections they hold, and entries' stages. */
export class WorkflowStore {
  constructor(private readonly sequelize: () => Sequelize) {}

  private select<T extends object>(sql: string, replacements: unknown[], transaction?: Transaction): Promise<T[]> {
    return this.sequelize().query<T>(sql, { replacements, type: QueryTypes.SELECT, transaction });
  }

  /** The SELECT of the ids of the collection's entries with one of `stages` stored (values escaped), for a list's IN. */
  stagedIds(tenantId: string, collection: string, stages: string[]): string {
    const esc = (v: string) => this.sequelize().escape(v);
    return `SELECT entry_id FROM cms_entry_stages WHERE tenant_id = ${esc(tenantId)} AND collection = ${esc(collection)} AND stage IN (${stages.map(esc).join(', ')})`;
  }

  /** The tenant's workflows, by name. */
  async list(tenantId: string): Promise<WorkflowRecord[]> {
    const rows = await this.select<WorkflowRow>('SELECT * FROM cms_workflows WHERE tenant_id = ? ORDER BY name, id', [tenantId]);
    const held = await this.select<{ collection: string; workflow_id: string }>(
      'SELECT collection, workflow_id FROM cms_workflow_collections WHERE tenant_id = ? ORDER BY collection',
      [tenantId],
    );
    return rows.map((r) =>
      recordOf(
        r,
        held.filter((h) => h.workflow_id === r.id).map((h) => h.collection),
      ),
    );
  }

  async get(tenantId: string, id: string): Promise<WorkflowRecord> {
    const found = (await this.list(tenantId)).find((w) => w._id === id);
    if (!found) throw new NotFoundError(`No workflow '${id.slice(0, 100)}' in your tenant (GET /api/workflows lists them)`);
    return found;
  }

  /** A collection already in another workflow of the tenant is 409 CONFLICT (the key of cms_workflow_collections). */
  private async holdCollections(tenantId: string, id: string, collections: string[], transaction: Transaction): Promise<void> {
    for (const collection of collections) {
      try {
        await this.sequelize().query('INSERT INTO cms_workflow_collections (tenant_id, collection, workflow_id) VALUES (?, ?, ?)', {
          replacements: [tenantId, collection, id],
          transaction,
        });
      } catch (err) {
        if (err instanceof UniqueConstraintError)
          throw new ConflictError(`The collection '${collection}' is already in another workflow (a collection follows at most one)`);
        throw err;
      }
    }
  }

  async create(tenantId: string, input: WorkflowInput): Promise<WorkflowRecord> {
    const id = randomUUID();
    const now = Date.now();
    await this.sequelize().transaction(async (transaction) => {
      await this.sequelize().query(
        'INSERT INTO cms_workflows (id, tenant_id, name, stages, publish_stage, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        { replacements: [id, tenantId, input.name, JSON.stringify(input.stages), input.publishStage ?? null, now, now], transaction },
      );
      await this.holdCollections(tenantId, id, input.collections, transaction);
    });
    return this.get(tenantId, id);
  }

  /** Replaces the workflow; the stages of entries of collections it no longer holds are dropped. */
  async update(tenantId: string, id: string, input: WorkflowInput, before: WorkflowRecord): Promise<WorkflowRecord> {
    await this.sequelize().transaction(async (transaction) => {
      await this.sequelize().query(
        'UPDATE cms_workflows SET name = ?, stages = ?, publish_stage = ?, updated_at = ? WHERE id = ? AND tenant_id = ?',
        {
          replacements: [input.name, JSON.stringify(input.stages), input.publishStage ?? null, Date.now(), id, tenantId],
          transaction,
        },
      );
      await this.sequelize().query('DELETE FROM cms_workflow_collections WHERE tenant_id = ? AND workflow_id = ?', {
        replacements: [tenantId, id],
        transaction,
      });
      await this.holdCollections(tenantId, id, input.collections, transaction);
      const dropped = before.collections.filter((c) => !input.collections.includes(c));
      await this.dropStages(tenantId, dropped, transaction);
    });
    return this.get(tenantId, id);
  }

  async remove(tenantId: string, workflow: WorkflowRecord): Promise<void> {
    await this.sequelize().transaction(async (transaction) => {
      await this.sequelize().query('DELETE FROM cms_workflow_collections WHERE tenant_id = ? AND workflow_id = ?', {
        replacements: [tenantId, workflow._id],
        transaction,
      });
      await this.sequelize().query('DELETE FROM cms_workflows WHERE tenant_id = ? AND id = ?', {
        replacements: [tenantId, workflow._id],
        transaction,
      });
      await this.dropStages(tenantId, workflow.collections, transaction);
    });
  }

  private async dropStages(tenantId: string, collections: string[], transaction: Transaction): Promise<void> {
    for (const collection of collections)
      await this.sequelize().query('DELETE FROM cms_entry_stages WHERE tenant_id = ? AND collection = ?', {
        replacements: [tenantId, collection],
        transaction,
      });
  }

  /** The stored stages of these entries (one query per CHUNK ids); entries without one are not in the map. */
  async stages(tenantId: string, collection: string, ids: string[], transaction?: Transaction): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const part = ids.slice(i, i + CHUNK);
      const rows = await this.select<{ entry_id: string; stage: string }>(
        `SELECT entry_id, stage FROM cms_entry_stages WHERE tenant_id = ? AND collection = ? AND entry_id IN (${part.map(() => '?').join(', ')})`,
        [tenantId, collection, ...part],
        transaction,
      );
      for (const r of rows) out.set(r.entry_id, r.stage);
    }
    return out;
  }

  /** Writes an entry's stage (one short transaction). */
  async setStage(tenantId: string, collection: string, entryId: string, stage: string, userId: string | null): Promise<void> {
    await this.sequelize().transaction(async (transaction) => {
      const where = [tenantId, collection, entryId];
      await this.sequelize().query('DELETE FROM cms_entry_stages WHERE tenant_id = ? AND collection = ? AND entry_id = ?', {
        replacements: where,
        transaction,
      });
      await this.sequelize().query(
        'INSERT INTO cms_entry_stages (tenant_id, collection, entry_id, stage, updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        { replacements: [...where, stage, userId, Date.now()], transaction },
      );
    });
  }

  /** Drops the stages of deleted entries. */
  async forget(tenantId: string, collection: string, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const part = ids.slice(i, i + CHUNK);
      await this.sequelize().query(
        `DELETE FROM cms_entry_stages WHERE tenant_id = ? AND collection = ? AND entry_id IN (${part.map(() => '?').join(', ')})`,
        { replacements: [tenantId, collection, ...part] },
      );
    }
  }
}

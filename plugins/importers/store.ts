import { DataTypes, Model, Op, type Sequelize, type Transaction } from 'sequelize';
import { insertRows } from '../../lib/db/insert-rows.js';

export class UploadRow extends Model {
  declare id: string;
  declare tenant_id: string;
  declare user_id: string | null;
  declare filename: string;
  declare size: number;
  declare valid: boolean;
  declare format: string | null;
  declare confidence: number;
  declare summary: string;
  declare work_dir: string;
  declare file_path: string;
  declare spool_path: string;
  declare created_at: number;
}
export class PlanRow extends Model {
  declare id: string;
  declare tenant_id: string;
  declare upload_id: string;
  declare plan: string;
  declare job_id: string | null;
  declare created_at: number;
}
export class JobRow extends Model {
  declare id: string;
  declare tenant_id: string;
  declare plan_id: string;
  declare format: string;
  declare status: 'processing' | 'completed' | 'failed';
  declare processed: number;
  declare total: number;
  declare results: string;
  declare warnings: string;
  declare error: string | null;
  declare started_at: number;
  declare completed_at: number | null;
  declare begun_at: number | null;
  declare data_job_id: string | null;
}
export class LinkRow extends Model {
  declare id: number;
  declare tenant_id: string;
  declare format: string;
  declare entity: string;
  declare external_id: string;
  declare collection: string;
  declare entry_id: string;
  declare checksum: string;
  declare updated_at: number;
  declare job_id: string | null;
  /** The installation locale the record was written to ('' when the record has no language). */
  declare locale: string;
}

/**
 * The importers' models, defined per kernel on its Sequelize instance (several kernels may share a
 * process in tests), the schema itself comes from the migrations.
 */
export class ImportStore {
  readonly uploads: typeof UploadRow;
  readonly plans: typeof PlanRow;
  readonly jobs: typeof JobRow;
  readonly links: typeof LinkRow;

  constructor(readonly sequelize: Sequelize) {
    const S = DataTypes.STRING;
    const common = { sequelize, timestamps: false };
    this.uploads = class extends UploadRow {};
    this.uploads.init(
      {
        id: { type: S(36), primaryKey: true },
        tenant_id: S(64),
        user_id: S(64),
        filename: S(255),
        size: DataTypes.BIGINT,
        valid: DataTypes.BOOLEAN,
        format: S(64),
        confidence: DataTypes.DOUBLE,
        summary: DataTypes.TEXT,
        work_dir: S(500),
        file_path: S(500),
        spool_path: S(500),
        created_at: DataTypes.BIGINT,
      },
      { ...common, tableName: 'import_uploads', modelName: 'ImportUpload' },
    );
    this.plans = class extends PlanRow {};
    this.plans.init(
      {
        id: { type: S(36), primaryKey: true },
        tenant_id: S(64),
        upload_id: S(36),
        plan: DataTypes.TEXT,
        job_id: S(36),
        created_at: DataTypes.BIGINT,
      },
      { ...common, tableName: 'import_plans', modelName: 'ImportPlan' },
    );
    this.jobs = class extends JobRow {};
    this.jobs.init(
      {
        id: { type: S(36), primaryKey: true },
        tenant_id: S(64),
        plan_id: S(36),
        format: S(64),
        status: S(20),
        processed: DataTypes.INTEGER,
        total: DataTypes.INTEGER,
        results: DataTypes.TEXT,
        warnings: DataTypes.TEXT,
        error: DataTypes.TEXT,
        started_at: DataTypes.BIGINT,
        completed_at: DataTypes.BIGINT,
        begun_at: DataTypes.BIGINT,
        data_job_id: S(64),
      },
      { ...common, tableName: 'import_jobs', modelName: 'ImportJob' },
    );
    this.links = class extends LinkRow {};
    this.links.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        tenant_id: S(64),
        format: S(64),
        entity: S(64),
        external_id: S(191),
        collection: S(64),
        entry_id: S(36),
        checksum: S(64),
        updated_at: DataTypes.BIGINT,
        job_id: S(36),
        locale: { type: S(35), defaultValue: '' },
      },
      { ...common, tableName: 'import_links', modelName: 'ImportLink' },
    );
  }

  /** The links of these source ids into one collection (one query per batch). */
  async linksFor(
    tenantId: string,
    format: string,
    entity: string,
    collection: string,
    externalIds: string[],
    transaction?: Transaction,
  ): Promise<Map<string, LinkRow>> {
    if (!externalIds.length) return new Map();
    const rows = await this.links.findAll({
      where: { tenant_id: tenantId, collection, format, entity, external_id: { [Op.in]: externalIds } },
      transaction,
    });
    // One row per source record: the one without a language (or the first written) stands for the entry.
    const out = new Map<string, LinkRow>();
    for (const r of rows.sort((a, b) => (a.locale ? 1 : 0) - (b.locale ? 1 : 0) || a.id - b.id))
      if (!out.has(r.external_id)) out.set(r.external_id, r);
    return out;
  }

  /** Every ledger row (each locale's) of these source ids in one collection, in the order they were written. */
  async localeLinksFor(tenantId: string, format: string, entity: string, collection: string, externalIds: string[]): Promise<LinkRow[]> {
    if (!externalIds.length) return [];
    return this.links.findAll({
      where: { tenant_id: tenantId, collection, format, entity, external_id: { [Op.in]: externalIds } },
      order: [['id', 'ASC']],
    });
  }

  /**
   * New ledger rows in multi-row INSERTs (plain rows, no model instances: lib/db/insert-rows.ts),
   * inside the caller's transaction (the entries' own).
   */
  async insertLinks(
    rows: Array<
      Pick<
        LinkRow,
        'tenant_id' | 'format' | 'entity' | 'external_id' | 'collection' | 'entry_id' | 'checksum' | 'updated_at' | 'job_id'
      > & {
        locale?: string;
      }
    >,
    transaction: Transaction,
  ): Promise<void> {
    if (!rows.length) return;
    const columns = [
      'tenant_id',
      'format',
      'entity',
      'external_id',
      'collection',
      'entry_id',
      'checksum',
      'updated_at',
      'job_id',
      'locale',
    ] as const;
    await insertRows(
      this.sequelize,
      this.sequelize.getQueryInterface().quoteIdentifier('import_links'),
      [...columns],
      rows.map((r) => columns.map((c) => (c === 'locale' ? (r.locale ?? '') : r[c]))),
      transaction,
    );
  }

  /** How many records of earlier imports of this format each entity has in each collection: entity -> collection -> count. */
  async countLinks(tenantId: string, format: string): Promise<Record<string, Record<string, number>>> {
    const rows = (await this.links.findAll({
      attributes: ['entity', 'collection', [this.sequelize.fn('COUNT', this.sequelize.col('id')), 'n']],
      where: { tenant_id: tenantId, format },
      group: ['entity', 'collection'],
      raw: true,
    })) as unknown as Array<{ entity: string; collection: string; n: number | string }>;
    const out: Record<string, Record<string, number>> = {};
    for (const r of rows) (out[r.entity] ??= {})[r.collection] = Number(r.n);
    return out;
  }
}

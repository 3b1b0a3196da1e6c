import { DataTypes, Model, Op, type Sequelize, type Transaction } from 'sequelize';
import type { DataOperation, PlanView, Risk, SafetyMode, StoredPlan, Summary } from './public.js';

/** pending: may be applied; queued: a background job owns it (jobId); applied: done (once). */
export type PlanStatus = 'pending' | 'queued' | 'applied';

class PlanRow extends Model {
  declare plan_id: string;
  declare tenant_id: string;
  declare actor: string;
  declare domain: string;
  declare mode: SafetyMode;
  declare risk: Risk;
  declare requires_confirmation: boolean;
  declare plan_hash: string;
  declare summary: string;
  declare operations: string;
  declare warnings: string;
  declare blocked_reasons: string;
  declare input: string;
  declare target_hash: string;
  declare status: PlanStatus;
  declare job_id: string | null;
  declare created_at: number;
  declare expires_at: number;
  declare applied_at: number | null;
}

export interface StoredPlanRecord extends StoredPlan {
  status: PlanStatus;
  jobId: string | null;
}

const iso = (ms: number | string | null) => (ms == null ? null : new Date(Number(ms)).toISOString());

/** An operation as the plan view shows it: what, on what, how many, and what it changes when the domain says. */
export function operationView(o: DataOperation & { count: number }): PlanView['operations'][number] {
  return { action: o.action, type: o.type, target: o.target, count: o.count, ...(o.changes ? { changes: o.changes } : {}) };
}

export function viewOf(plan: StoredPlan): PlanView {
  return {
    planId: plan.planId,
    planHash: plan.planHash,
    domain: plan.domain,
    mode: plan.mode,
    risk: plan.risk,
    requiresConfirmation: plan.requiresConfirmation,
    summary: plan.summary,
    operations: plan.operations,
    warnings: plan.warnings,
    blockedReasons: plan.blockedReasons,
    expiresAt: plan.expiresAt,
  };
}

function toRecord(row: PlanRow): StoredPlanRecord {
  const operationsFull = JSON.parse(row.operations) as DataOperation[];
  return {
    planId: row.plan_id,
    planHash: row.plan_hash,
    domain: row.domain,
    mode: row.mode,
    risk: row.risk,
    requiresConfirmation: Boolean(row.requires_confirmation),
    summary: JSON.parse(row.summary) as Summary,
    operations: operationsFull.map((o) => operationView({ ...o, count: o.count ?? 1 })),
    warnings: JSON.parse(row.warnings),
    blockedReasons: JSON.parse(row.blocked_reasons),
    expiresAt: iso(row.expires_at)!,
    tenantId: row.tenant_id,
    actor: JSON.parse(row.actor),
    input: JSON.parse(row.input),
    targetHash: row.target_hash,
    operationsFull,
    createdAt: iso(row.created_at)!,
    appliedAt: iso(row.applied_at),
    status: row.status,
    jobId: row.job_id,
  };
}

/** The table cms_data_plans. */
export class PlanStore {
  private readonly model: typeof PlanRow;

  constructor(sequelize: Sequelize) {
    this.model = class extends PlanRow {};
    this.model.init(
      {
        plan_id: { type: DataTypes.STRING(36), primaryKey: true },
        tenant_id: DataTypes.STRING(64),
        actor: DataTypes.TEXT,
        domain: DataTypes.STRING(64),
        mode: DataTypes.STRING(16),
        risk: DataTypes.STRING(16),
        requires_confirmation: DataTypes.BOOLEAN,
        plan_hash: DataTypes.STRING(64),
        summary: DataTypes.TEXT,
        operations: DataTypes.TEXT,
        warnings: DataTypes.TEXT,
        blocked_reasons: DataTypes.TEXT,
        input: DataTypes.TEXT,
        target_hash: DataTypes.STRING(191),
        status: DataTypes.STRING(16),
        job_id: DataTypes.STRING(36),
        created_at: DataTypes.BIGINT,
        expires_at: DataTypes.BIGINT,
        applied_at: DataTypes.BIGINT,
      },
      { sequelize, tableName: 'cms_data_plans', modelName: 'CmsDataPlan', timestamps: false },
    );
  }

  async insert(plan: StoredPlan): Promise<void> {
    await this.model.create({
      plan_id: plan.planId,
      tenant_id: plan.tenantId,
      actor: JSON.stringify(plan.actor),
      domain: plan.domain,
      mode: plan.mode,
      risk: plan.risk,
      requires_confirmation: plan.requiresConfirmation,
      plan_hash: plan.planHash,
      summary: JSON.stringify(plan.summary),
      operations: JSON.stringify(plan.operationsFull),
      warnings: JSON.stringify(plan.warnings),
      blocked_reasons: JSON.stringify(plan.blockedReasons),
      input: JSON.stringify(plan.input ?? null),
      target_hash: plan.targetHash,
      status: 'pending',
      job_id: null,
      created_at: Date.parse(plan.createdAt),
      expires_at: Date.parse(plan.expiresAt),
      applied_at: null,
    });
  }

  async get(planId: string, tenantId: string): Promise<StoredPlanRecord | null> {
    const row = await this.model.findOne({ where: { plan_id: planId, tenant_id: tenantId } });
    return row ? toRecord(row) : null;
  }

  /** pending -> queued; false when the plan was not pending (another request took it). */
  async markQueued(planId: string): Promise<boolean> {
    const [changed] = await this.model.update({ status: 'queued', job_id: null }, { where: { plan_id: planId, status: 'pending' } });
    return changed === 1;
  }

  async setJob(planId: string, jobId: string): Promise<void> {
    await this.model.update({ job_id: jobId }, { where: { plan_id: planId } });
  }

  /** Back to pending (a job that did not apply it): it may be applied again. */
  async release(planId: string): Promise<void> {
    await this.model.update({ status: 'pending' }, { where: { plan_id: planId, status: { [Op.ne]: 'applied' } } });
  }

  /** Marks applied (inside the apply's transaction when there is one): false when it was applied already. */
  async markApplied(planId: string, transaction?: Transaction): Promise<boolean> {
    const [changed] = await this.model.update(
      { status: 'applied', applied_at: Date.now() },
      { where: { plan_id: planId, status: { [Op.ne]: 'applied' } }, transaction },
    );
    return changed === 1;
  }

  /**
   * Deletes at most `batch` plans: unapplied ones `graceMs` after they expired (until then apply answers
   * 410 PLAN_EXPIRED rather than 404), applied ones `appliedRetentionMs` after they were applied.
   */
  async prune(now: number, graceMs: number, appliedRetentionMs: number, batch: number): Promise<number> {
    const rows = await this.model.findAll({
      attributes: ['plan_id'],
      where: {
        [Op.or]: [
          { status: { [Op.ne]: 'applied' }, expires_at: { [Op.lt]: now - graceMs } },
          { status: 'applied', applied_at: { [Op.lt]: now - appliedRetentionMs } },
        ],
      },
      limit: batch,
    });
    if (!rows.length) return 0;
    return this.model.destroy({ where: { plan_id: rows.map((r) => r.plan_id) } });
  }
}

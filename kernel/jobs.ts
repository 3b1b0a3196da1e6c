import { randomUUID } from 'node:crypto';
import { DataTypes, Model, Op, literal, type Sequelize } from 'sequelize';
import { NotFoundError } from './errors.js';
import type { Logger } from './logger.js';

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface JobView {
  jobId: string;
  type: string;
  status: JobStatus;
  tenantId: string;
  payload: unknown;
  progress: { processed: number; total: number; percent: number } | null;
  result: unknown;
  error: string | null;
  attempts: number;
  claimedBy: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface JobHelpers {
  /** Records progress; also extends the lease, so a long job is not taken over. */
  progress(processed: number, total: number): Promise<void>;
  logger: Logger;
  /**
   * Aborted when the instance stops: a long handler checks it between steps (never inside a
   * transaction), saves where it is, and throws JobInterruptedError, so the job is queued again
   * without using up an attempt and resumes on the next start (or another instance).
   */
  signal: AbortSignal;
}

/** Thrown by a handler that stopped early because the instance is stopping: the job is queued again as it was. */
export class JobInterruptedError extends Error {
  constructor(message = 'Interrupted by the instance stopping; queued again') {
    super(message);
    this.name = 'JobInterruptedError';
  }
}

/** Runs one job type. Added to the `jobHandlers` registry; only instances that have it claim such jobs. */
export interface JobHandler {
  type: string;
  run(job: JobView, helpers: JobHelpers): Promise<unknown>;
}

class JobRow extends Model {
  declare id: string;
  declare type: string;
  declare status: JobStatus;
  declare tenant_id: string;
  declare payload: string | null;
  declare progress: string | null;
  declare result: string | null;
  declare error: string | null;
  declare attempts: number;
  declare max_attempts: number;
  declare run_after: number;
  declare lease_until: number | null;
  declare claimed_by: string | null;
  declare created_at: Date;
  declare updated_at: Date;
  declare completed_at: Date | null;
}

const parse = (text: string | null) => (text == null ? null : JSON.parse(text));
const iso = (d: Date | string | null) => (d == null ? null : new Date(d).toISOString());

function view(row: JobRow): JobView {
  return {
    jobId: row.id,
    type: row.type,
    status: row.status,
    tenantId: row.tenant_id,
    payload: parse(row.payload),
    progress: parse(row.progress),
    result: parse(row.result),
    error: row.error,
    attempts: row.attempts,
    claimedBy: row.claimed_by,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    completedAt: iso(row.completed_at),
  };
}

/**
 * A database-backed job queue. Any instance may enqueue; a job is claimed with a compare-and-swap
 * UPDATE (status and lease must still be what the claimer read), so exactly one instance runs it.
 * A claim is a lease: if the instance dies, the job becomes claimable again when the lease expires.
 */
export class JobQueue {
  private readonly model: typeof JobRow;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private started = false;
  private stopping = false;
  /** Aborted by stop(): handlers in flight see it in helpers.signal. */
  private stopSignal = new AbortController();
  readonly workerId: string = randomUUID();

  constructor(
    sequelize: Sequelize,
    private readonly handlers: { get(type: string): JobHandler | undefined; keys(): string[] },
    private readonly logger: Logger,
    private readonly options: { pollIntervalMs: number; leaseMs: number; maxAttempts: number },
  ) {
    this.model = class extends JobRow {};
    this.model.init(
      {
        id: { type: DataTypes.STRING(36), primaryKey: true },
        type: DataTypes.STRING(100),
        status: DataTypes.STRING(20),
        tenant_id: DataTypes.STRING(64),
        payload: DataTypes.TEXT,
        progress: DataTypes.TEXT,
        result: DataTypes.TEXT,
        error: DataTypes.TEXT,
        attempts: DataTypes.INTEGER,
        max_attempts: DataTypes.INTEGER,
        run_after: DataTypes.BIGINT,
        lease_until: DataTypes.BIGINT,
        claimed_by: DataTypes.STRING(64),
        completed_at: DataTypes.DATE(3),
      },
      { sequelize, tableName: 'cms_jobs', modelName: 'CmsJob', underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' },
    );
  }

  async enqueue(
    type: string,
    payload: unknown,
    opts: { tenantId?: string; delayMs?: number; maxAttempts?: number } = {},
  ): Promise<JobView> {
    const row = await this.model.create({
      id: randomUUID(),
      type,
      status: 'queued',
      tenant_id: opts.tenantId ?? 'default',
      payload: JSON.stringify(payload ?? null),
      attempts: 0,
      max_attempts: opts.maxAttempts ?? this.options.maxAttempts,
      run_after: Date.now() + (opts.delayMs ?? 0),
    });
    this.wake();
    return view(row);
  }

  async get(jobId: string): Promise<JobView> {
    const row = await this.model.findByPk(jobId);
    if (!row) throw new NotFoundError(`Job '${jobId}' not found`);
    return view(row);
  }

  async list(filter: { type?: string; status?: JobStatus; tenantId?: string; limit?: number } = {}): Promise<JobView[]> {
    const where: Record<string, unknown> = {};
    if (filter.type) where.type = filter.type;
    if (filter.status) where.status = filter.status;
    if (filter.tenantId) where.tenant_id = filter.tenantId;
    const rows = await this.model.findAll({ where, order: [['created_at', 'DESC']], limit: Math.min(filter.limit ?? 50, 500) });
    return rows.map(view);
  }

  /** Claims one runnable job of a type this instance handles, or returns null. */
  async claimNext(workerId = this.workerId): Promise<JobView | null> {
    const types = this.handlers.keys();
    if (!types.length) return null;
    const now = Date.now();
    const candidates = await this.model.findAll({
      attributes: ['id', 'status', 'lease_until'],
      where: {
        type: types,
        attempts: { [Op.lt]: literal('max_attempts') },
        [Op.or]: [
          { status: 'queued', run_after: { [Op.lte]: now } },
          { status: 'running', lease_until: { [Op.lt]: now } },
        ],
      },
      order: [['created_at', 'ASC']],
      limit: 8,
    });
    for (const c of candidates) {
      const [changed] = await this.model.update(
        { status: 'running', claimed_by: workerId, lease_until: now + this.options.leaseMs, attempts: literal('attempts + 1') },
        {
          // Re-check what made it a candidate: a job failed and re-queued (with a backoff) since the
          // read is 'queued' again, but not due yet.
          where: {
            id: c.id,
            status: c.status,
            attempts: { [Op.lt]: literal('max_attempts') },
            ...(c.status === 'running' ? { lease_until: c.lease_until } : { run_after: { [Op.lte]: now } }),
          },
        },
      );
      if (changed === 1) return view((await this.model.findByPk(c.id))!);
    }
    return null;
  }

  /** Runs a claimed job with its handler and records the outcome. */
  async execute(job: JobView, workerId = this.workerId): Promise<void> {
    const handler = this.handlers.get(job.type);
    const mine = { id: job.jobId, claimed_by: workerId };
    const helpers: JobHelpers = {
      signal: this.stopSignal.signal,
      logger: this.logger.child({ jobId: job.jobId, jobType: job.type }),
      progress: async (processed, total) => {
        const percent = total > 0 ? Math.min(100, Math.round((processed / total) * 100)) : 0;
        await this.model.update(
          { progress: JSON.stringify({ processed, total, percent }), lease_until: Date.now() + this.options.leaseMs },
          { where: mine },
        );
      },
    };
    // Renew the lease while the handler runs, so a long job that reports no progress is not taken over.
    const heartbeat = setInterval(
      () => {
        this.model
          .update({ lease_until: Date.now() + this.options.leaseMs }, { where: { ...mine, status: 'running' } })
          .catch((err) => helpers.logger.warn({ err }, 'lease renewal failed'));
      },
      Math.max(50, Math.floor(this.options.leaseMs / 3)),
    );
    heartbeat.unref();
    try {
      if (!handler) throw new Error(`No handler for job type '${job.type}'`);
      const result = await handler.run(job, helpers);
      await this.model.update(
        { status: 'completed', result: JSON.stringify(result ?? null), error: null, completed_at: new Date(), lease_until: null },
        { where: mine },
      );
    } catch (err) {
      if (err instanceof JobInterruptedError) {
        helpers.logger.info('job interrupted by shutdown; queued again');
        await this.model.update(
          { status: 'queued', lease_until: null, claimed_by: null, run_after: Date.now(), attempts: literal('attempts - 1') },
          { where: mine },
        );
        return;
      }
      const message = (err as Error)?.message ?? String(err);
      const row = await this.model.findByPk(job.jobId);
      const retry = row != null && row.attempts < row.max_attempts;
      helpers.logger.warn({ err, retry }, 'job failed');
      await this.model.update(
        retry
          ? { status: 'queued', error: message, lease_until: null, run_after: Date.now() + 1000 * 2 ** row!.attempts }
          : { status: 'failed', error: message, lease_until: null, completed_at: new Date() },
        { where: mine },
      );
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Marks as failed the jobs whose instance died during their last allowed attempt: their lease
   * expired and they may not be claimed again, so nothing else would ever finish them.
   */
  async failAbandoned(): Promise<number> {
    const [changed] = await this.model.update(
      {
        status: 'failed',
        error: 'The instance running this job stopped and no attempts are left',
        lease_until: null,
        completed_at: new Date(),
      },
      { where: { status: 'running', lease_until: { [Op.lt]: Date.now() }, attempts: { [Op.gte]: literal('max_attempts') } } },
    );
    return changed;
  }

  /** Claims and runs jobs until none is runnable. */
  async drain(): Promise<number> {
    await this.failAbandoned();
    let count = 0;
    // Checked before each claim: a job claimed while stopping would be left running until its lease expires.
    while (!this.stopping) {
      const job = await this.claimNext();
      if (!job) break;
      await this.execute(job);
      count++;
    }
    return count;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.stopping = false;
    if (this.stopSignal.signal.aborted) this.stopSignal = new AbortController();
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (!this.started || this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.running) return;
      this.running = this.drain()
        .then(() => undefined)
        .catch((err) => this.logger.error({ err }, 'job runner poll failed'))
        .finally(() => {
          this.running = null;
          this.schedule(this.options.pollIntervalMs);
        });
    }, delay);
  }

  /** Polls now instead of at the next interval (after an enqueue on this instance). */
  wake(): void {
    if (this.started && !this.stopping && !this.running) this.schedule(0);
  }

  /** Stops polling, tells the job in flight (helpers.signal) and waits for it. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.started = false;
    this.stopSignal.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.stopping = false;
  }
}

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Op, type Sequelize } from 'sequelize';
import { SetupStateRow } from './models/setup-state.js';
import { type CmsConfig, type EventBus, type Logger, modelsOf, type SettingsService } from '../../kernel/sdk.js';
import { privateConfigPath } from '../../kernel/config.js';
import { isRunningDatabase, testDatabase, type DbTarget } from './db-target.js';
import { seedDefaultCollections, type ContentSeeder } from './default-collections.js';
import { DbRestartRequiredError, SetupAlreadyCompleteError, SetupNotSeededError } from './errors.js';
import { SETUP_COMPLETED, type SetupCompletedEvent } from './public.js';

export type SetupState = 'incomplete' | 'seeded' | 'ready';

export interface SetupStatus {
  state: SetupState;
  dbValidated: boolean;
  seeded: boolean;
  complete: boolean;
  progress: number;
  error: string | null;
}

/** What setup needs from the auth plugin (met through the container, never by import). */
export interface AdminCreator {
  create(input: {
    email: string;
    password: string;
    role: string;
    username?: string;
  }): Promise<{ _id: string; email: string; username: string; role: string }>;
}

/**
 * The setup state machine: incomplete -> (database validated) -> seeded -> ready. The state lives in
 * the database, so every instance sees it; once ready it never goes back, and each instance remembers
 * that without asking again.
 */
export class SetupService {
  private readyCached = false;
  private seeding: Promise<void> | null = null;

  private readonly models: { SetupStateRow: typeof SetupStateRow };

  constructor(
    readonly sequelize: Sequelize,
    private readonly config: CmsConfig,
    private readonly settings: SettingsService,
    private readonly logger: Logger,
    /** The content plugin's SDK when it is enabled (default collection models are seeded through it). */
    private readonly content: () => ContentSeeder | null = () => null,
    /** The themes plugin when it is enabled (seeding writes the default theme through it). */
    private readonly themes: () => { seedDefault(tenantId: string): Promise<unknown> } | null = () => null,
    /** The event bus: SETUP_COMPLETED goes out on it. */
    private readonly events?: Pick<EventBus, 'publish'>,
    /** The update-check plugin's signing key, generated beside the private config when that plugin is enabled. */
    private readonly ensureSigningKey: () => void = () => undefined,
  ) {
    this.models = modelsOf(sequelize.models, { SetupStateRow });
  }

  async status(): Promise<SetupStatus> {
    const row = await this.models.SetupStateRow.findByPk(1);
    const state: SetupState = row?.state === 'ready' ? 'ready' : row?.state === 'incomplete' || !row ? 'incomplete' : 'seeded';
    // 'completing' shows as seeded; a stale completing claim can be taken over by complete().
    if (state === 'ready') this.readyCached = true;
    return {
      state,
      dbValidated: Boolean(Number(row?.db_validated ?? 0)),
      seeded: Boolean(Number(row?.seeded ?? 0)),
      complete: state === 'ready',
      progress: Number(row?.progress ?? 0),
      error: row?.error ?? null,
    };
  }

  /** Cheap after the first positive answer (the redirect asks on every request). */
  /** True once setup is known to be complete (never waits; false may mean "not known yet": ask isReady). */
  get readyNow(): boolean {
    return this.readyCached;
  }

  async isReady(): Promise<boolean> {
    return this.readyCached || (await this.status()).complete;
  }

  private async update(fields: Record<string, unknown>): Promise<void> {
    await this.models.SetupStateRow.update(fields, { where: { id: 1 } });
  }

  async assertOpen(): Promise<void> {
    if (await this.isReady()) throw new SetupAlreadyCompleteError();
  }

  async testDb(target: DbTarget) {
    await this.assertOpen();
    const dbStats = await testDatabase(this.config, target);
    const warnings: string[] = [];
    if (!isRunningDatabase(this.config, target)) {
      warnings.push(`This instance runs on ${this.describeRunning()}; seeding this database needs its DB_* settings and a restart.`);
    } else {
      await this.update({ db_validated: true });
    }
    return { authenticated: true, dbStats, warnings };
  }

  /** Headless setup's database test: the running connection answers, so the database is validated. */
  async validateRunningDatabase(): Promise<void> {
    await this.assertOpen();
    await this.sequelize.authenticate();
    await this.update({ db_validated: true });
  }

  private describeRunning(): string {
    const db = this.config.db;
    return db.type === 'sqlite' ? `sqlite (${db.storage})` : `mariadb (${db.host}:${db.port}/${db.name})`;
  }

  /** Starts seeding in the background; progress shows in /api/system/health (data.setup.progress). */
  async startSeeding(target: DbTarget): Promise<void> {
    await this.assertOpen();
    if ((await this.models.SetupStateRow.findByPk(1))?.state === 'completing') throw new SetupAlreadyCompleteError();
    if (!isRunningDatabase(this.config, target)) throw new DbRestartRequiredError(this.describeRunning());
    if (this.seeding) return;
    await this.update({ progress: 1, error: null, db_validated: true });
    this.seeding = this.seed(target)
      .catch(async (err) => {
        this.logger.error({ err }, 'seeding failed');
        await this.update({ error: (err as Error).message.slice(0, 500), progress: 0 }).catch(() => undefined);
      })
      .finally(() => {
        this.seeding = null;
      });
  }

  /** Resolves when the seeding in progress (if any) has ended. */
  async seeded(): Promise<void> {
    await this.seeding;
  }

  /** Idempotent: a second run keeps the private config's secrets and the settings already written. */
  async seed(target: DbTarget): Promise<void> {
    await this.writePrivateConfig(target);
    await this.update({ progress: 20 });
    await this.settings.seedDefaults('default', (done, total) => this.update({ progress: 20 + Math.floor((done / total) * 60) }));
    await seedDefaultCollections(this.content());
    await this.themes()?.seedDefault('default');
    // Conditional: a seed still running when setup completes must not reopen it.
    await this.models.SetupStateRow.update(
      { seeded: true, progress: 100, error: null, state: 'seeded' },
      { where: { id: 1, state: ['incomplete', 'seeded'] } },
    );
  }

  /**
   * <data>/private/config.json, owner-only: the spec's private keys. Secrets are generated once (32
   * random bytes each) and kept on later runs, so a re-seed never invalidates what they protect.
   */
  private async writePrivateConfig(target: DbTarget): Promise<void> {
    const file = privateConfigPath(this.config.dataPath);
    const before = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    const secret = (key: string) => (typeof before[key] === 'string' ? (before[key] as string) : randomBytes(32).toString('hex'));
    const privateConfig = {
      DB_TYPE: target.type,
      DB_HOST: target.type === 'mariadb' ? target.host : '',
      DB_PORT: target.type === 'mariadb' ? target.port : '',
      DB_NAME: target.type === 'mariadb' ? target.database : '',
      DB_USER: target.type === 'mariadb' ? target.username : '',
      DB_PASSWORD: target.type === 'mariadb' ? target.password : '',
      JWT_SECRET_KEY: secret('JWT_SECRET_KEY'),
      ENCRYPTION_KEY: secret('ENCRYPTION_KEY'),
      MULTI_TENANT: before.MULTI_TENANT === true,
    };
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await chmod(dirname(file), 0o700);
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(privateConfig, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, file);
    this.config.secrets.jwtSecretKey ??= privateConfig.JWT_SECRET_KEY;
    this.config.secrets.encryptionKey ??= privateConfig.ENCRYPTION_KEY;
    // The private signing key (the update check's installation id is derived from it), generated once
    // beside the private config in <data>/private/signing-key.json and kept on later runs.
    this.ensureSigningKey();
  }

  /** Creates the first admin and marks setup ready (exactly once, even if two requests race). */
  async complete(users: AdminCreator, input: { username?: string; email: string; password: string; siteName?: string }) {
    await this.assertOpen();
    if (!(await this.status()).seeded) throw new SetupNotSeededError();
    // Claim the completion (completed_at marks the claim); a claim older than a minute is from a process
    // that died half-way and may be taken over.
    const now = Date.now();
    const [claimed] = await this.models.SetupStateRow.update(
      { state: 'completing', completed_at: now },
      { where: { id: 1, [Op.or]: [{ state: 'seeded' }, { state: 'completing', completed_at: { [Op.lt]: now - 60000 } }] } },
    );
    if (claimed !== 1) throw new SetupAlreadyCompleteError();
    try {
      const user = await users.create({ email: input.email, password: input.password, role: 'admin', username: input.username });
      if (input.siteName) await this.settings.set('SITE_NAME', input.siteName);
      await this.settings.set('ADMIN_EMAIL', user.email);
      const completedAt = Date.now();
      await this.update({ state: 'ready', completed_at: completedAt });
      this.readyCached = true;
      await this.announceCompleted({ adminId: user._id, completedAt });
      return user;
    } catch (err) {
      await this.update({ state: 'seeded', completed_at: null });
      throw err;
    }
  }

  /** Setup is complete whether or not anyone hears of it: a failed publish is logged, never thrown. */
  private async announceCompleted(payload: SetupCompletedEvent): Promise<void> {
    try {
      await this.events?.publish<SetupCompletedEvent>(SETUP_COMPLETED, payload);
    } catch (err) {
      this.logger.warn({ err }, 'setup-completed event not published');
    }
  }

  /** manage:system after setup: writes any missing defaults again; users and content are untouched. */
  async reinitialize(): Promise<{ settingsWritten: number }> {
    return { settingsWritten: await this.settings.seedDefaults() };
  }
}

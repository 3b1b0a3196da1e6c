import { randomUUID } from 'node:crypto';
import semver from 'semver';
import type { Sequelize } from 'sequelize';
import type { AuditLog, CmsConfig, KernelState, Logger } from '../../kernel/sdk.js';
import { UpdateServerClient, UpdateServerError } from './client.js';
import { REASON_TEXT, staticDisabledReason, type DisabledReason, type UpdateCheckOptions } from './options.js';
import { idList, isEphemeral, lookupLocation, metrics, stableId, systemFacts, type Location, type UpdateCheckPayload } from './payload.js';
import { installationIdFrom } from './signing-key.js';
import type { z } from 'zod';
import type { updateStatusSchema } from './routes.js';
import type { Advisory, CheckResult, UpdateCheckStore } from './state-store.js';

/** What the service reads of the rest of the instance (all through the container, never by import). */
export interface UpdateCheckDeps {
  config: CmsConfig;
  options: UpdateCheckOptions;
  sequelize: Sequelize;
  logger: Logger;
  kernelState: KernelState;
  store: UpdateCheckStore;
  audit: Pick<AuditLog, 'append'>;
  /** The instance's private signing key (generated once when missing). */
  signingKey: () => string;
  /** Ids of the registered dashboard widgets. */
  widgetIds: () => string[];
  /** A System Setting (default tenant), or undefined without the setup plugin. */
  setting: (key: string) => Promise<unknown>;
}

export interface EnabledState {
  enabled: boolean;
  reason: DisabledReason | null;
  reasonText: string | null;
  serverUrl: string | null;
}

export interface DiagnoseStep {
  step: 'registration' | 'signed-ping' | 'geolocation';
  ok: boolean;
  ms: number;
  detail?: string;
  error?: string;
}

/** What GET /api/update-check/status answers: its route's response schema (routes.ts) is the one definition. */
export type UpdateStatus = z.output<typeof updateStatusSchema>;

const SEVERITY_RANK: Record<string, number> = { low: 1, medium: 2, moderate: 2, high: 3, critical: 4 };
const AUDIT_LEVEL = ['low', 'low', 'medium', 'high', 'critical'] as const;

const isHttpUrl = (v: unknown): v is string => {
  if (typeof v !== 'string' || !v.trim()) return false;
  try {
    return /^https?:$/.test(new URL(v).protocol);
  } catch {
    return false;
  }
};

/** Advisories that concern `version`: those whose `affected` range it satisfies (an unreadable range counts). */
export function advisoriesFor(version: string, advisories: Advisory[]): Advisory[] {
  return advisories.filter((a) => {
    const range = semver.validRange(a.affected);
    return !range || !semver.valid(version) || semver.satisfies(version, range, { includePrerelease: true });
  });
}

/**
 * The update check: once shortly after WARMED, then every period (12 h) with jitter, at most once per
 * period across every instance on the database (a compare-and-swap claim of the shared row). It runs
 * on a timer, never in a request; a failure is logged and retried after `retryMs`.
 */
export class UpdateCheckService {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly stopping = new AbortController();
  private readonly owner = randomUUID();
  /** register + check-update of this process, one at a time (a scheduled check and a diagnose). */
  private exclusive: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: UpdateCheckDeps) {}

  /** The shared row (tests and operators reset the period with `store.reset()`). */
  get store(): UpdateCheckStore {
    return this.deps.store;
  }

  /** Whether a check may run now, and why not. The setting and the server address are read each time. */
  async enabledState(): Promise<EnabledState> {
    const { options, config } = this.deps;
    const off = (reason: DisabledReason, serverUrl: string | null = null): EnabledState => ({
      enabled: false,
      reason,
      reasonText: REASON_TEXT[reason],
      serverUrl,
    });
    const fixed = staticDisabledReason(options, config);
    if (fixed) return off(fixed);
    if ((await this.deps.setting('UPDATE_CHECK_ENABLED')) === false) return off('setting-off');
    const serverUrl = await this.serverUrl();
    if (!serverUrl) return off('no-server');
    return { enabled: true, reason: null, reasonText: null, serverUrl };
  }

  /** CMS_TELEMETRY_URL / plugins.options url, else the private TELEMETRY_URL setting. */
  async serverUrl(): Promise<string | null> {
    if (this.deps.options.url) return this.deps.options.url;
    const setting = await this.deps.setting('TELEMETRY_URL');
    return isHttpUrl(setting) ? setting.trim() : null;
  }

  /** Generates the installation's private signing key once (<data>/private/signing-key.json); setup calls it. */
  ensureSigningKey(): void {
    this.deps.signingKey();
  }

  private async installationId(): Promise<string> {
    return this.deps.store.installationId(installationIdFrom(this.deps.signingKey()));
  }

  /** The spec's payload, exactly its fields: counts and facts, never content, credentials, addresses or host names. */
  async buildPayload(signal?: AbortSignal): Promise<{ payload: UpdateCheckPayload; geolocationError?: string }> {
    const { config, options, sequelize, kernelState } = this.deps;
    const geo: { location: Location; error?: string } = await lookupLocation(options.geolocationUrl, signal);
    const registered = new Set(this.deps.widgetIds());
    const defaults = await this.deps.setting('DASHBOARD_DEFAULT_WIDGETS');
    const dashboardWidgets = Array.isArray(defaults)
      ? defaults.filter((id): id is string => typeof id === 'string' && registered.has(id))
      : [];
    const payload: UpdateCheckPayload = {
      current_version: kernelState.version,
      node_version: process.versions.node,
      environment: config.env,
      is_ephemeral: isEphemeral(config, options.ephemeral),
      installation_id: await this.installationId(),
      stable_id: stableId(),
      db_type: config.db.type,
      location: geo.location,
      metrics: await metrics(sequelize),
      system: systemFacts(),
      widgets: idList(registered),
      dashboard_widgets: idList(dashboardWidgets),
      plugins: idList(
        kernelState
          .plugins()
          .filter((p) => p.enabled)
          .map((p) => p.id),
      ),
    };
    return { payload, geolocationError: geo.error };
  }

  private one<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.exclusive.then(fn, fn);
    this.exclusive = next.catch(() => undefined);
    return next;
  }

  /** Registers (a new secret replaces the stored one). */
  private async register(client: UpdateServerClient, signal?: AbortSignal): Promise<string> {
    const secret = await client.register(await this.installationId(), signal);
    await this.deps.store.setSecret(secret);
    this.deps.logger.info('update check: registered with the update server');
    return secret;
  }

  /**
   * One check: registers when there is no secret, posts the signed payload; after a 403 discards the
   * secret, registers again and retries once. Stores the result and tells the dashboard (audit log)
   * about a new version or advisory once.
   */
  async checkNow(serverUrl: string, signal?: AbortSignal): Promise<CheckResult> {
    return this.one(async () => {
      const client = new UpdateServerClient(serverUrl);
      const { payload, geolocationError } = await this.buildPayload(signal);
      if (geolocationError) this.deps.logger.debug({ error: geolocationError }, 'update check: location left empty');
      let secret = (await this.deps.store.secret()) ?? (await this.register(client, signal));
      let answer;
      try {
        answer = await client.checkUpdate(secret, payload, signal);
      } catch (err) {
        if (!(err instanceof UpdateServerError) || err.status !== 403) throw err;
        this.deps.logger.info({ code: err.code }, 'update check: signature refused; registering again');
        await this.deps.store.setSecret(null);
        secret = await this.register(client, signal);
        answer = await client.checkUpdate(secret, payload, signal);
      }
      const current = payload.current_version;
      const result: CheckResult = {
        currentVersion: current,
        latestVersion: answer.latestVersion,
        updateAvailable:
          answer.updateAvailable ??
          (semver.valid(answer.latestVersion) && semver.valid(current) ? semver.gt(answer.latestVersion, current) : false),
        advisories: answer.advisories,
        checkedAt: new Date().toISOString(),
      };
      await this.deps.store.saveResult(result);
      this.deps.logger.info(
        { latestVersion: result.latestVersion, updateAvailable: result.updateAvailable, advisories: result.advisories.length },
        'update check done',
      );
      await this.announce(result).catch((err) => this.deps.logger.warn({ err }, 'update check: dashboard message not written'));
      return result;
    });
  }

  /** A system message on the dashboard (derived from the audit log), once per new version or advisory set. */
  private async announce(result: CheckResult): Promise<void> {
    const advisories = advisoriesFor(result.currentVersion, result.advisories);
    if (!result.updateAvailable && advisories.length === 0) return;
    const key = `${result.latestVersion}|${advisories
      .map((a) => a.id)
      .sort()
      .join(',')}`;
    if ((await this.deps.store.state()).announced === key) return;
    const rank = Math.max(result.updateAvailable ? 2 : 1, ...advisories.map((a) => SEVERITY_RANK[a.severity.toLowerCase()] ?? 2));
    const parts = [];
    if (result.updateAvailable) parts.push(`Version ${result.latestVersion} is available (this instance runs ${result.currentVersion}).`);
    for (const a of advisories.slice(0, 5))
      parts.push(`Security advisory ${a.id} (${a.severity})${a.fixedIn ? `, fixed in ${a.fixedIn}` : ''}: ${a.summary}`.slice(0, 500));
    await this.deps.audit.append({
      domain: 'update-check',
      operation: 'check',
      actor: { userId: null, tenantId: 'default' },
      outcome: 'success',
      level: AUDIT_LEVEL[rank] ?? 'medium',
      action: advisories.length ? 'update.security-advisory' : 'update.available',
      message: parts.join(' '),
      details: { latestVersion: result.latestVersion, currentVersion: result.currentVersion, advisories: advisories.map((a) => a.id) },
    });
    await this.deps.store.setAnnounced(key);
  }

  private async databaseConnected(): Promise<boolean> {
    try {
      await this.deps.sequelize.authenticate();
      return true;
    } catch {
      return false;
    }
  }

  /** One scheduled run: skipped when disabled, without a database, or when another instance has this period. */
  async tick(): Promise<'disabled' | 'no-database' | 'not-due' | 'checked' | 'failed'> {
    const { options, store, logger } = this.deps;
    if (!(await this.databaseConnected())) {
      logger.info('update check skipped: the database is not connected');
      return 'no-database';
    }
    const state = await this.enabledState();
    if (!state.enabled) {
      logger.debug({ reason: state.reason }, 'update check skipped: disabled');
      return 'disabled';
    }
    if (!(await store.claim(this.owner, options.intervalMs))) return 'not-due';
    try {
      await this.checkNow(state.serverUrl!, this.stopping.signal);
      return 'checked';
    } catch (err) {
      const message = (err as Error).message.slice(0, 300);
      if (!this.stopped) logger.warn({ error: message }, 'update check failed; trying again later');
      await store.failed(message, options.intervalMs, options.retryMs).catch(() => undefined);
      return 'failed';
    }
  }

  private jitter(): number {
    return Math.floor(Math.random() * this.deps.options.jitterMs);
  }

  /** When the next run should come after an outcome. */
  private async nextDelay(outcome: Awaited<ReturnType<UpdateCheckService['tick']>> | 'error'): Promise<number> {
    const { options, store } = this.deps;
    if (outcome === 'checked') return options.intervalMs + this.jitter();
    if (outcome === 'not-due') {
      const ends = await store.periodEndsAt(options.intervalMs).catch(() => null);
      return Math.max((ends ?? Date.now() + options.intervalMs) - Date.now(), 1_000) + this.jitter();
    }
    return options.retryMs + this.jitter();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    // setTimeout holds at most 2^31-1 ms (~24.8 days).
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.running = (async () => {
          let outcome: Awaited<ReturnType<UpdateCheckService['tick']>> | 'error';
          try {
            outcome = await this.tick();
          } catch (err) {
            if (!this.stopped) this.deps.logger.warn({ err }, 'update check run failed');
            outcome = 'error';
          }
          const delay = await this.nextDelay(outcome).catch(() => this.deps.options.retryMs);
          this.schedule(delay);
        })().finally(() => {
          this.running = null;
        });
      },
      Math.min(delayMs, 2 ** 31 - 1),
    );
    this.timer.unref();
  }

  /** Starts the schedule: the first run after `initialDelayMs`, or a random moment 10-60 s after WARMED. */
  start(): void {
    const delay = this.deps.options.initialDelayMs ?? 10_000 + Math.floor(Math.random() * 50_000);
    this.schedule(delay);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** The diagnose route: registration, a signed ping (a real check), the geolocation lookup; each timed. */
  async diagnose(): Promise<{ enabled: boolean; reason: string | null; reasonText: string | null; steps: DiagnoseStep[] }> {
    const state = await this.enabledState();
    if (!state.enabled) return { enabled: false, reason: state.reason, reasonText: state.reasonText, steps: [] };
    const serverUrl = state.serverUrl!;
    const steps: DiagnoseStep[] = [];
    const run = async (step: DiagnoseStep['step'], fn: () => Promise<string | undefined>) => {
      const started = performance.now();
      try {
        const detail = await fn();
        steps.push({ step, ok: true, ms: Math.round(performance.now() - started), ...(detail ? { detail } : {}) });
      } catch (err) {
        steps.push({ step, ok: false, ms: Math.round(performance.now() - started), error: (err as Error).message.slice(0, 300) });
      }
    };
    await run('registration', () =>
      this.one(async () => {
        if (await this.deps.store.secret()) return 'registered (a secret is stored)';
        await this.register(new UpdateServerClient(serverUrl), this.stopping.signal);
        return 'registered now';
      }),
    );
    await run('signed-ping', async () => {
      const result = await this.checkNow(serverUrl, this.stopping.signal);
      // A successful ping is this period's check: the schedule does not send another one now.
      await this.deps.store.claim(this.owner, 0).catch(() => undefined);
      return `latest version ${result.latestVersion}${result.updateAvailable ? ' (an update is available)' : ''}`;
    });
    await run('geolocation', async () => {
      const { location, error, off } = await lookupLocation(this.deps.options.geolocationUrl, this.stopping.signal);
      if (off) return 'switched off (CMS_TELEMETRY_GEOLOCATION_URL=off): the location is sent as null';
      if (error) throw new Error(error);
      return [location.city, location.country].filter(Boolean).join(', ') || undefined;
    });
    return { enabled: true, reason: null, reasonText: null, steps };
  }

  /** The last result for the admin UI; `updateAvailable` and advisories compared with the running version. */
  async status(): Promise<UpdateStatus> {
    const state = await this.enabledState();
    const stored = await this.deps.store.state();
    const running = this.deps.kernelState.version;
    const result = stored.result;
    const latest = result?.latestVersion ?? null;
    const updateAvailable =
      latest !== null && semver.valid(latest) && semver.valid(running) ? semver.gt(latest, running) : Boolean(result?.updateAvailable);
    return {
      enabled: state.enabled,
      reason: state.reason,
      reasonText: state.reasonText,
      serverConfigured: state.serverUrl !== null || (await this.serverUrl()) !== null,
      registered: stored.hasSecret,
      currentVersion: running,
      latestVersion: latest,
      updateAvailable,
      advisories: result ? advisoriesFor(running, result.advisories) : [],
      checkedAt: result?.checkedAt ?? null,
      lastAttemptAt: stored.lastAttemptAt,
      lastError: stored.lastError,
    };
  }
}

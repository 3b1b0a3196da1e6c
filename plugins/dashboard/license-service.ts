import type { z } from 'zod';
import type { licenseState } from './routes-widgets.js';
import type { KeyObject } from 'node:crypto';
import { type Logger, modelsOf, type ModelMap } from '../../kernel/sdk.js';
import { checkLicenseKey, coversWidget, type LicenseKeyCheck } from './license-key.js';
import { DashboardInstallation } from './models/dashboard-installation.js';

const DAY_MS = 24 * 3600 * 1000;

/** A widget's licence state as its route answers it (routes-widgets.ts licenseState is the one definition); keyProblem says why a configured key does not count (malformed, bad-signature, expired, not-covered). */
export type LicenseState = z.output<typeof licenseState>;

export interface LicenseSources {
  /** CMS_INSTALLED_AT / option installedAt: replaces the recorded installation time. */
  installedAtOverride?: number;
  /** CMS_LICENSE_KEY / option licenseKey; otherwise the LICENSE_KEY System Setting. */
  configuredKey?: string;
  setting(): Promise<string | undefined>;
  /** Whether setup has completed (true when the setup plugin is absent). */
  setupComplete(): Promise<boolean>;
  publicKey: KeyObject;
  trialDays: number;
}

/**
 * Licence gating of paid widgets: a key-less trial of trialDays from installation (the first time this
 * plugin sees setup completed; recorded in dashboard_installation, shared by all instances), then a
 * valid signed key. Freemium widgets are always allowed.
 */
export class LicenseService {
  private installedAt: number | null = null;
  private readonly checked = new Map<string, LicenseKeyCheck>();

  private readonly models: { DashboardInstallation: typeof DashboardInstallation };

  constructor(
    models: ModelMap,
    private readonly sources: LicenseSources,
    private readonly logger: Logger,
  ) {
    this.models = modelsOf(models, { DashboardInstallation });
  }

  /** The installation time, recording it once setup is complete; null while setup is not complete. */
  async installationTime(): Promise<number | null> {
    if (this.sources.installedAtOverride !== undefined) return this.sources.installedAtOverride;
    if (this.installedAt !== null) return this.installedAt;
    let row = await this.models.DashboardInstallation.findByPk(1);
    if (!row) {
      if (!(await this.sources.setupComplete())) return null;
      try {
        row = await this.models.DashboardInstallation.create({ id: 1, installed_at: Date.now() });
      } catch {
        row = await this.models.DashboardInstallation.findByPk(1); // another instance recorded it first
      }
    }
    this.installedAt = row ? Number(row.installed_at) : null;
    return this.installedAt;
  }

  async key(): Promise<LicenseKeyCheck | null> {
    const key = this.sources.configuredKey ?? (await this.sources.setting().catch(() => undefined));
    if (!key) return null;
    let check = this.checked.get(key);
    if (!check) {
      check = checkLicenseKey(key, this.sources.publicKey);
      if (!check.valid) this.logger.warn({ problem: check.problem }, 'the configured licence key is not valid');
      if (this.checked.size > 20) this.checked.clear();
      this.checked.set(key, check);
    }
    // Expiry is re-evaluated on every call (a cached check may have expired since).
    if (check.valid && check.payload.expiresAt) return { ...check, expired: Date.parse(check.payload.expiresAt) <= Date.now() };
    return check;
  }

  async state(widget: { id: string; license: 'freemium' | 'paid' }): Promise<LicenseState> {
    const now = Date.now();
    const installed = await this.installationTime();
    const trialEnds = (installed ?? now) + this.sources.trialDays * DAY_MS;
    const base = { widgetId: widget.id, license: widget.license, trialEndsAt: new Date(trialEnds).toISOString() };
    if (widget.license === 'freemium') return { ...base, allowed: true, reason: 'freemium' };
    const key = await this.key();
    let keyProblem: string | undefined;
    if (key?.valid && !key.expired && coversWidget(key.payload, widget.id)) {
      return { ...base, allowed: true, reason: 'licensed', licensee: key.payload.licensee };
    }
    if (key) keyProblem = !key.valid ? key.problem : key.expired ? 'expired' : 'not-covered';
    const extra = keyProblem ? { keyProblem } : {};
    if (now < trialEnds) return { ...base, allowed: true, reason: 'trial', ...extra };
    return { ...base, allowed: false, reason: 'expired', ...extra };
  }
}

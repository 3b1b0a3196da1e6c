import { fileURLToPath } from 'node:url';
import { asFunction, asValue } from 'awilix';
import type { Registry as PromRegistry } from 'prom-client';
import { z } from 'zod';
import { BootError } from '../../kernel/errors.js';
import { definePlugin } from '../../kernel/index.js';
import type { Logger } from '../../kernel/logger.js';
import { DashboardState } from './dashboard-state.js';
import { BUILT_IN_LICENSE_PUBLIC_KEY, parsePublicKey } from './license-key.js';
import { licenseCommand } from './license-command.js';
import { LicenseService } from './license-service.js';
import { DASHBOARD_MIGRATIONS } from './migrations.js';
import { DashboardInstallation } from './models/dashboard-installation.js';
import { buildMetricsRegistry, metricsMiddleware, type MetricSources } from './prometheus.js';
import { activityRoutes } from './routes-activity.js';
import { logRoutes } from './routes-logs.js';
import { overviewRoutes } from './routes-overview.js';
import { widgetRoutes } from './routes-widgets.js';
import { optional } from './sources.js';
import { loadWidgetFolders } from './widget-manifest.js';

/** plugins.options.dashboard; the CMS_* environment variables named beside each take precedence. */
const optionsSchema = z.strictObject({
  /** CMS_INSTALLED_AT: ISO time the trial counts from, instead of the recorded installation. */
  installedAt: z.string().datetime({ offset: true }).optional(),
  trialDays: z.number().int().min(0).max(365).default(14),
  /** CMS_LICENSE_KEY; otherwise the LICENSE_KEY System Setting. */
  licenseKey: z.string().max(10000).optional(),
  /** CMS_LICENSE_PUBLIC_KEY: PEM or base64 SPKI DER of the Ed25519 key licence keys are signed with. */
  licensePublicKey: z.string().max(5000).optional(),
  /** CMS_METRICS_TOKEN: enables GET /metrics behind `Authorization: Bearer <token>`. */
  metricsToken: z.string().min(16).max(500).optional(),
  /** Stock below which a product counts as low when it has no lowStockThreshold field. */
  lowStockThreshold: z.number().min(0).default(5),
  /** Folder of widget folders (default: widgets/ beside plugins/). */
  widgetsDir: z.string().optional(),
});

interface MetricsHolder {
  registry: PromRegistry | null;
}

export default definePlugin({
  register({ container, routes, registries, migrations, models, config, options: raw }) {
    const env = process.env;
    const parsed = optionsSchema.safeParse({
      ...raw,
      ...(env.CMS_INSTALLED_AT ? { installedAt: env.CMS_INSTALLED_AT } : {}),
      ...(env.CMS_LICENSE_KEY ? { licenseKey: env.CMS_LICENSE_KEY } : {}),
      ...(env.CMS_LICENSE_PUBLIC_KEY ? { licensePublicKey: env.CMS_LICENSE_PUBLIC_KEY } : {}),
      ...(env.CMS_METRICS_TOKEN ? { metricsToken: env.CMS_METRICS_TOKEN } : {}),
    });
    if (!parsed.success) throw new BootError(`Invalid plugins.options.dashboard (or CMS_* variables): ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const o = parsed.data;
    let publicKey;
    try {
      publicKey = parsePublicKey(o.licensePublicKey ?? BUILT_IN_LICENSE_PUBLIC_KEY);
    } catch {
      throw new BootError('CMS_LICENSE_PUBLIC_KEY (plugins.options.dashboard.licensePublicKey) is not a PEM or base64 DER public key');
    }
    if (publicKey.asymmetricKeyType !== 'ed25519') throw new BootError('The licence public key must be an Ed25519 key');

    models.add(DashboardInstallation);
    for (const m of DASHBOARD_MIGRATIONS) migrations.add(m);
    container.register('dashboardOptions', asValue({ lowStockThreshold: o.lowStockThreshold }));
    const state = new DashboardState(config.dataPath);
    container.register('dashboardState', asValue(state));
    container.register(
      'dashboardLicense',
      asFunction((cradle: Record<string, unknown>) => new LicenseService({
        installedAtOverride: o.installedAt ? Date.parse(o.installedAt) : undefined,
        configuredKey: o.licenseKey,
        publicKey,
        trialDays: o.trialDays,
        async setting() {
          const value = await optional<{ get(key: string): Promise<unknown> }>(cradle, 'settings')?.get('LICENSE_KEY');
          return typeof value === 'string' && value.trim() ? value.trim() : undefined;
        },
        async setupComplete() {
          const setup = optional<{ status(): Promise<{ complete: boolean }> }>(cradle, 'setup');
          return setup ? (await setup.status()).complete : true;
        },
      }, cradle.logger as Logger)).singleton(),
    );

    registries.cliCommands.add(licenseCommand);
    for (const widget of loadWidgetFolders(o.widgetsDir ?? fileURLToPath(new URL('../../widgets/', import.meta.url)))) registries.widgets.add(widget);
    for (const route of [...overviewRoutes, ...logRoutes, ...activityRoutes, ...widgetRoutes]) routes.add(route);

    const metrics: MetricsHolder = { registry: null };
    container.register('dashboardMetrics', asValue(metrics));
    registries.middleware.add({ id: 'dashboard-prometheus', stage: 'beforeIdentity', handler: metricsMiddleware(o.metricsToken, () => metrics.registry) });
    // Watches two answers of other plugins: failed 2FA verifications (the auth plugin records none;
    // the security widget counts them) and the completion of setup (the trial starts then).
    registries.middleware.add({
      id: 'dashboard-observer',
      stage: 'afterIdentity',
      async handler(ctx, next) {
        await next();
        if (ctx.method !== 'POST') return;
        if (ctx.path === '/api/auth/2fa/verify') {
          const body = ctx.body as { success?: unknown } | undefined;
          if ((ctx.status === 200 && body?.success === false) || (ctx.status >= 400 && ctx.status < 500)) state.failedTwoFactor++;
        } else if (ctx.path === '/api/setup/complete' && ctx.status === 200) {
          const license = ctx.state.scope?.cradle?.dashboardLicense as LicenseService | undefined;
          await license?.installationTime().catch(() => undefined);
        }
      },
    });
  },

  boot({ container }) {
    const holder = container.resolve<MetricsHolder>('dashboardMetrics');
    holder.registry = buildMetricsRegistry(() => container.cradle as unknown as MetricSources);
  },

  close({ container }) {
    const holder = container.resolve<MetricsHolder>('dashboardMetrics');
    holder.registry?.clear();
    holder.registry = null;
  },
});

import { fileURLToPath } from 'node:url';
import { asFunction, asValue } from 'awilix';
import type { Registry as PromRegistry } from 'prom-client';
import { z } from 'zod';
import {
  BootError,
  definePlugin,
  type EventBus,
  type ContainerServices,
  type AuditLog,
  type HttpMetrics,
  optional,
} from '../../kernel/sdk.js';
import { TWO_FACTOR_FAILED } from '../auth/public.js';
import { SETUP_COMPLETED } from '../setup/public.js';
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
import { timeSeriesRoutes } from './routes-timeseries.js';
import { MetricPointStore } from './metric-point-store.js';
import { TimeSeriesRecorder } from './time-series-recorder.js';
import { storageSampler, watchActivity } from './time-series-sources.js';
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
  /** How often each instance writes its counted figures over time to the database (seconds). */
  timeSeriesFlushSeconds: z.number().int().min(1).max(3600).default(60),
});

interface MetricsHolder {
  registry: PromRegistry | null;
}

export default definePlugin({
  // CMS_INSTALLED_AT, CMS_LICENSE_KEY, CMS_LICENSE_PUBLIC_KEY, CMS_METRICS_TOKEN (plugin.json `env`) win over the file's options.
  options: optionsSchema,
  register({ container, routes, registries, migrations, models, config, options: o }) {
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
      asFunction(
        (cradle: ContainerServices) =>
          new LicenseService(
            cradle.models,
            {
              installedAtOverride: o.installedAt ? Date.parse(o.installedAt) : undefined,
              configuredKey: o.licenseKey,
              publicKey,
              trialDays: o.trialDays,
              async setting() {
                const value = await optional(cradle, 'settings')?.get('LICENSE_KEY');
                return typeof value === 'string' && value.trim() ? value.trim() : undefined;
              },
              async setupComplete() {
                const setup = optional(cradle, 'setup');
                return setup ? (await setup.status()).complete : true;
              },
            },
            cradle.logger,
          ),
      ).singleton(),
    );

    registries.cliCommands.add(licenseCommand);
    for (const widget of loadWidgetFolders(o.widgetsDir ?? fileURLToPath(new URL('../../widgets/', import.meta.url))))
      registries.widgets.add(widget);
    for (const route of [...overviewRoutes, ...logRoutes, ...activityRoutes, ...widgetRoutes, ...timeSeriesRoutes]) routes.add(route);
    container.register(
      'dashboardTimeSeries',
      asFunction(
        (cradle: ContainerServices) =>
          new TimeSeriesRecorder(new MetricPointStore(cradle.sequelize), storageSampler(cradle, cradle.sequelize), cradle.logger, {
            flushMs: o.timeSeriesFlushSeconds * 1000,
          }),
      ).singleton(),
    );

    const metrics: MetricsHolder = { registry: null };
    container.register('dashboardMetrics', asValue(metrics));
    registries.middleware.add({
      id: 'dashboard-prometheus',
      stage: 'beforeIdentity',
      handler: metricsMiddleware(o.metricsToken, () => metrics.registry),
    });
  },

  boot({ container, logger, onClose, every }) {
    const holder = container.resolve<MetricsHolder>('dashboardMetrics');
    holder.registry = buildMetricsRegistry(() => container.cradle as unknown as MetricSources);
    // Two events of other plugins: failed 2FA verifications (the security widget counts them) and the
    // completion of setup (the licence trial starts then). Unsubscribed at shutdown.
    const events = container.resolve<EventBus>('events');
    const state = container.resolve<DashboardState>('dashboardState');
    const license = container.resolve<LicenseService>('dashboardLicense');
    onClose(
      events.subscribe(TWO_FACTOR_FAILED, () => {
        state.failedTwoFactor++;
      }),
    );
    // Figures over time: counted from the request counters, the audit log and the bus; flushed every
    // timeSeriesFlushSeconds and at shutdown (close() below, after these subscriptions are gone).
    const timeSeries = container.resolve<TimeSeriesRecorder>('dashboardTimeSeries');
    for (const stop of watchActivity(timeSeries, {
      httpMetrics: container.resolve<HttpMetrics>('httpMetrics'),
      audit: container.resolve<AuditLog>('audit'),
      events,
    }))
      onClose(stop);
    timeSeries.start(every);
    onClose(
      events.subscribe(SETUP_COMPLETED, async () => {
        await license.installationTime().catch((err) => logger.warn({ err }, 'recording the installation time failed'));
      }),
    );
  },

  async close({ container }) {
    await container.resolve<TimeSeriesRecorder>('dashboardTimeSeries').close();
    const holder = container.resolve<MetricsHolder>('dashboardMetrics');
    holder.registry?.clear();
    holder.registry = null;
  },
});

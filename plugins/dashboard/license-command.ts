import type { CliCommand } from '../../kernel/sdk.js';
import type { WidgetDefinition } from './public.js';
import type { LicenseService } from './license-service.js';

/** `cms license [--json]`: the licence state of every paid dashboard widget (contributed to the cliCommands registry). */
export const licenseCommand: CliCommand = {
  name: 'license',
  usage: '[--json]',
  summary: 'licence state of the paid dashboard widgets (boots, then stops)',
  async run({ kernel, json, out }) {
    const license = kernel.container.resolve<LicenseService>('dashboardLicense');
    const widgets = (kernel.registries as { widgets: { list(): WidgetDefinition[] } }).widgets.list().filter((w) => w.license === 'paid');
    const installed = await license.installationTime();
    const states = await Promise.all(widgets.map((w) => license.state(w)));
    const report = { installedAt: installed === null ? null : new Date(installed).toISOString(), widgets: states };
    if (json) return out(`${JSON.stringify(report, null, 2)}\n`);
    out(`Installed: ${report.installedAt ?? 'setup not complete (trial not started)'}\n`);
    for (const w of states) {
      const who = w.licensee ? ` licensee ${w.licensee}` : '';
      const problem = w.keyProblem ? ` (configured key: ${w.keyProblem})` : '';
      out(`${w.widgetId}: ${w.allowed ? 'allowed' : 'LICENSE REQUIRED'} - ${w.reason}${who}; trial ends ${w.trialEndsAt}${problem}\n`);
    }
  },
};

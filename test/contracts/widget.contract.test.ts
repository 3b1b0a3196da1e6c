import { expect } from 'chai';
import type { WidgetDefinition } from '../../plugins/dashboard/public.js';
import { widgetContract } from '../../testing/index.js';
import { fixturePlugin, useTestKernel } from '../helpers/kernel.js';
import { DB_VARIANTS } from '../helpers/services.js';

/**
 * The contract every registered dashboard widget meets (testing/widget.ts, which plugin authors run against
 * their own widgets), run against each one: its widget.json is valid (when it comes from a widget folder),
 * its data endpoint is a documented GET route that needs the widget's permission, answers a permitted
 * identity with the envelope {success: true, data} and refuses a signed-in identity without the permission
 * (403) and a guest (401 or 403) with the error envelope. Identities come from the test-identity fixture
 * (x-test-identity: viewer, editor, nobody).
 */
for (const variant of DB_VARIANTS) {
  describe(`widget contract (${variant.name})`, function () {
    this.timeout(60000);
    let widgets: WidgetDefinition[];

    const t = useTestKernel(
      { db: variant.name, plugins: [fixturePlugin('test-identity')] },
      { variant, seed: async () => void (widgets = t.kernel.registries.widgets.list() as WidgetDefinition[]) },
    );

    it('has widgets registered (the shipped widget folders at least)', function () {
      expect(widgets.length).to.be.greaterThan(0);
      expect(widgets.map((w) => w.id)).to.include.members(['cpu', 'logs', 'scim-status']);
    });

    widgetContract({ t, widgets: () => widgets });
  });
}

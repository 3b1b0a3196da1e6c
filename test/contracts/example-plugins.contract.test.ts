import { join } from 'node:path';
// As a plugin author imports the runners: through the package's `exports` ("cms-kernel/testing").
import { pluginContract } from 'cms-kernel/testing';
import { DIST_ROOT } from '../../kernel/version.js';
import { fixturePlugin, startTestKernel } from '../helpers/kernel.js';

/**
 * The exported contract runners used as a third-party plugin's own test would use them: the typed example
 * plugin (examples/notes-plugin, compiled to dist/examples/notes-plugin) against the plugin contract. Its
 * boot function names the plugin's folder in plugins.paths, with the test-identity fixture so the routes are
 * also called as viewer and admin. See "Testing your plugin against the contracts" in
 * docs/guides/writing-a-plugin.md.
 */
const NOTES_PLUGIN = join(DIST_ROOT, 'examples', 'notes-plugin');

pluginContract({
  id: 'notes',
  boot: () => startTestKernel({ plugins: [fixturePlugin('test-identity'), NOTES_PLUGIN] }),
});

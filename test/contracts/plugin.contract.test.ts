import { join } from 'node:path';
import { discoverFolder } from '../../kernel/discovery.js';
import { DIST_ROOT, PROJECT_ROOT } from '../../kernel/version.js';
import { pluginContract } from '../../testing/index.js';
import { fixturePlugin, startTestKernel } from '../helpers/kernel.js';

/**
 * The contract every shipped plugin meets (testing/plugin.ts, which plugin authors run against their own
 * plugin), run against each one: it boots on its own (with what it requires), every route it declares is in
 * the OpenAPI document, and no route answers 500 to missing or garbage input, whoever calls. Built-in
 * plugins load anyway; the others load through plugins.paths.
 */
const shipped = [
  ...discoverFolder(join(DIST_ROOT, 'plugins')).map((p) => ({ id: p.manifest.id, path: null as string | null })),
  { id: 'hello', path: join(PROJECT_ROOT, 'examples', 'hello-plugin') },
  { id: 'bench-hash', path: join(DIST_ROOT, 'bench', 'plugins', 'bench-hash') },
];

for (const plugin of shipped) {
  pluginContract({
    id: plugin.id,
    boot: () => {
      const paths = [fixturePlugin('test-identity'), ...(plugin.path ? [plugin.path] : [])];
      // The setup plugin is checked on a completed instance (headless setup); before that every route redirects.
      const setup = plugin.id === 'setup';
      return startTestKernel({
        plugins: paths,
        setup,
        config: setup
          ? {
              plugins: {
                options: { auth: { bcryptRounds: 4 }, setup: { admin: { email: 'contract@example.com', password: 'contract password' } } },
              },
            }
          : {},
      });
    },
  });
}

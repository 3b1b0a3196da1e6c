import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestKernel, tempDir, type TestKernel } from '../helpers/kernel.js';
import { REDIS_URL, requireVariant, uniqueName, CACHE_VARIANTS } from '../helpers/services.js';
import { until } from '../helpers/until.js';

interface Probe {
  booted: Record<string, unknown>;
  current(): Record<string, unknown>;
  sourceOf(path: string): string;
  changes: Array<Record<string, unknown>>;
}

/**
 * A plugin that declares an options schema and maps a variable and two System Settings (plugin.json `env` and
 * `settings`): written under dist/ so its `import 'zod'` finds the project's node_modules.
 */
function writeConfiguredPlugin(): string {
  const base = mkdtempSync(join(fileURLToPath(new URL('.', import.meta.url)), '.plugin-config-'));
  const dir = join(base, 'configured');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'plugin.json'),
    JSON.stringify({
      id: 'configured',
      name: 'Configured',
      version: '1.0.0',
      kernel: '^1.0.0',
      env: { CONFIGURED_GREETING: { option: 'greeting' } },
      settings: { CONFIGURED_GREETING: { option: 'greeting' }, CONFIGURED_LIMIT: { option: 'limit' } },
    }),
  );
  writeFileSync(
    join(dir, 'index.js'),
    `import { z } from 'zod';
import { asValue } from 'awilix';
export default () => {
  const probe = { booted: null, changes: [] };
  return {
    options: z.strictObject({ greeting: z.string().min(2).default('Hello'), limit: z.number().int().min(1).default(5) }),
    register({ container }) { container.register('configuredProbe', asValue(probe)); },
    boot({ options, pluginConfig }) {
      probe.booted = options;
      probe.current = () => pluginConfig.current();
      probe.sourceOf = (path) => pluginConfig.sourceOf(path);
      pluginConfig.watch((next) => probe.changes.push(next));
    },
  };
};
`,
  );
  return base;
}

describe('plugin configuration: System Settings mapped in the manifest', function () {
  let base: string;
  before(() => {
    base = writeConfiguredPlugin();
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const probeOf = (t: TestKernel) => t.kernel.container.resolve<Probe>('configuredProbe');
  const settingsOf = (t: TestKernel) => t.kernel.container.resolve<{ set(key: string, value: unknown): Promise<void> }>('settings');

  it('boot sees settings under the file options and the environment; a change is followed; a bad setting is left out', async function () {
    const dataDir = tempDir();
    const plugins = [join(base, 'configured')];
    try {
      const first = await startTestKernel({ dataDir, plugins, env: {}, captureLogs: 'warn' });
      try {
        expect(probeOf(first).booted).to.deep.equal({ greeting: 'Hello', limit: 5 });
        await settingsOf(first).set('CONFIGURED_GREETING', 'Good morning');
        await until(async () => (probeOf(first).changes.length ? true : undefined), 'the watcher hears the change');
        expect(probeOf(first).changes).to.deep.equal([{ greeting: 'Good morning', limit: 5 }]);
        expect(probeOf(first).current()).to.deep.equal({ greeting: 'Good morning', limit: 5 });
        expect(probeOf(first).sourceOf('greeting')).to.equal('System Setting CONFIGURED_GREETING');
        // A value the schema refuses is left out with a warning; what is in force stays.
        await settingsOf(first).set('CONFIGURED_LIMIT', 0);
        await until(
          async () => (first.logs.some((l) => l.includes('CONFIGURED_LIMIT')) ? true : undefined),
          'the warning names the setting',
        );
        expect(probeOf(first).current()).to.deep.equal({ greeting: 'Good morning', limit: 5 });
        expect(probeOf(first).changes).to.have.length(1);
      } finally {
        await first.close();
      }
      // Read at boot: the stored setting; the file's option over it; the environment over both.
      const again = await startTestKernel({ dataDir, plugins, env: {} });
      try {
        expect(probeOf(again).booted).to.deep.equal({ greeting: 'Good morning', limit: 5 });
      } finally {
        await again.close();
      }
      const fromFile = await startTestKernel({
        dataDir,
        plugins,
        env: {},
        config: { plugins: { options: { configured: { greeting: 'Hi' } } } },
      });
      try {
        expect(probeOf(fromFile).booted).to.deep.equal({ greeting: 'Hi', limit: 5 });
        expect(probeOf(fromFile).sourceOf('greeting')).to.equal('plugins.options.configured.greeting');
      } finally {
        await fromFile.close();
      }
      const fromEnv = await startTestKernel({
        dataDir,
        plugins,
        env: { CONFIGURED_GREETING: 'Howdy' },
        config: { plugins: { options: { configured: { greeting: 'Hi' } } } },
      });
      try {
        expect(probeOf(fromEnv).booted).to.deep.equal({ greeting: 'Howdy', limit: 5 });
        expect(probeOf(fromEnv).sourceOf('greeting')).to.equal('environment variable CONFIGURED_GREETING');
      } finally {
        await fromEnv.close();
      }
      // A bad variable stops the boot with the option path and the variable named.
      const refused = await startTestKernel({ dataDir, plugins, env: { CONFIGURED_GREETING: 'x' } }).then(
        (t) => t.close().then(() => null),
        (err: Error) => err,
      );
      expect(refused?.message).to.include('greeting (environment variable CONFIGURED_GREETING)');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a change made on one instance reaches the other through Redis', async function () {
    requireVariant(
      this,
      CACHE_VARIANTS.find((v) => v.name === 'redis')!,
    );
    const dataDir = tempDir();
    const plugins = [join(base, 'configured')];
    const redis = { url: REDIS_URL, prefix: uniqueName('cmsconfig') };
    const a = await startTestKernel({ dataDir, plugins, env: {}, config: { redis } });
    const b = await startTestKernel({ dataDir, plugins, env: {}, config: { redis } });
    try {
      await settingsOf(a).set('CONFIGURED_GREETING', 'Hello from A');
      const seen = await until(async () => probeOf(b).changes[0], 'instance B follows the setting');
      expect(seen).to.deep.equal({ greeting: 'Hello from A', limit: 5 });
    } finally {
      await b.close();
      await a.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../kernel/config.js';
import { createKernel, type Kernel } from '../../kernel/index.js';
import { createLogger } from '../../kernel/logger.js';
import { PROJECT_ROOT } from '../../kernel/version.js';
import {
  bootFailure,
  fixturePlugin,
  pluginBootFailure,
  pluginRoot,
  startFailure,
  startTestKernel,
  tempDir,
  useCleanup,
  writePlugin,
  useTestKernel,
} from '../helpers/kernel.js';

/** The example third-party plugin (plain JavaScript, outside plugins/). */
const HELLO_PLUGIN = join(PROJECT_ROOT, 'examples', 'hello-plugin');
/** The kernel's own awilix, so plugin code in temporary folders can build resolvers. */
const AWILIX_URL = import.meta.resolve('awilix');

type Order = string[];
const g = globalThis as typeof globalThis & { __cmsLoaderTest?: Order };

/** A temporary folder for plugin folders; `package.json` makes its .js files ES modules. */

describe('loader: plugins that stop the boot', function () {
  this.timeout(30000);
  const cleanup = useCleanup();
  /** The message of the boot stopped by one plugin written from `manifest` and `code`. */
  const refusal = (manifest: Record<string, unknown>, code?: string) => pluginBootFailure(cleanup, manifest, code);
  /** Plugin code that registers `key` in the container. */
  const registering = (key: string, value: string) =>
    `import { asValue } from ${JSON.stringify(AWILIX_URL)};\nexport default { register({ container }) { container.register('${key}', asValue(${value})); } };\n`;
  /** Plugin code adding one route with `extra` fields (permission). */
  const routing = (path: string, extra = '') =>
    `export default { register({ routes }) { routes.add({ method: 'GET', path: '${path}',${extra} summary: 'x', request: {}, handler: () => 1 }); } };\n`;

  it('a container key registered by two plugins names both plugins', async () => {
    const root = pluginRoot(cleanup);
    const alpha = writePlugin(root, { id: 'alpha' }, registering('sharedThing', JSON.stringify('a')));
    const beta = writePlugin(root, { id: 'beta' }, registering('sharedThing', JSON.stringify('b')));
    const err = await bootFailure({ plugins: [alpha, beta] });
    expect(err.message).to.contain("'sharedThing'");
    expect(err.message).to.contain("'alpha'");
    expect(err.message).to.contain("'beta'");
  });

  it('a container key the kernel already owns names the plugin and the kernel', async () => {
    const message = await refusal({ id: 'greedy' }, registering('config', '{}'));
    expect(message).to.contain("'config'");
    expect(message).to.contain("'greedy'");
    expect(message).to.contain("'kernel'");
  });

  it('a manifest whose provides does not match what the code adds', async () => {
    const message = await refusal(
      { id: 'sneaky' },
      `export default { register({ registries }) { registries.healthChecks.add({ id: 'sneaky-check', check: async () => ({ status: 'ok' }) }); } };\n`,
    );
    expect(message).to.contain("'sneaky'");
    expect(message).to.contain('provides.healthChecks');
    expect(message).to.contain('sneaky-check');

    const message2 = await refusal({ id: 'promiser', provides: { healthChecks: ['never-added'] } });
    expect(message2).to.contain("'promiser'");
    expect(message2).to.contain('never-added');
  });

  it('an invalid manifest: a bad id, an unknown field', async () => {
    const root = pluginRoot(cleanup);
    const badId = join(root, 'bad-id');
    mkdirSync(badId);
    writeFileSync(join(badId, 'plugin.json'), JSON.stringify({ id: 'Bad_Id', name: 'Bad', version: '1.0.0', kernel: '^1.0.0' }));
    writeFileSync(join(badId, 'index.js'), 'export default { register() {} };\n');
    const err = await bootFailure({ plugins: [badId] });
    expect(err.message).to.contain('Invalid plugin manifest');
    expect(err.message).to.contain(join(badId, 'plugin.json'));
    expect(err.message).to.contain('id');

    const unknownField = writePlugin(root, { id: 'colourful', colour: 'red' });
    const err2 = await bootFailure({ plugins: [unknownField] });
    expect(err2.message).to.contain('Invalid plugin manifest');
    expect(err2.message).to.contain('colour');
  });

  it('a plugins.paths folder without plugin.json', async () => {
    const empty = join(pluginRoot(cleanup), 'empty');
    mkdirSync(empty);
    const err = await bootFailure({ plugins: [empty] });
    expect(err.message).to.contain(empty);
    expect(err.message).to.contain('plugin.json');
  });

  it('an entry module that does not export a plugin', async () => {
    const message = await refusal({ id: 'not-a-plugin' }, 'export const something = 1;\n');
    expect(message).to.contain("'not-a-plugin'");
    expect(message).to.contain('must export default');
  });

  it('a route with an unknown permission', async () => {
    const message = await refusal(
      { id: 'gated', namespaces: { gated: { GET: 'public' } } },
      routing('/api/gated/x', " permission: 'reports:view',"),
    );
    expect(message).to.contain("'reports:view'");
    expect(message).to.contain('/api/gated/x');
    expect(message).to.contain("'gated'");
  });

  it('a namespace mapped to an unknown permission', async () => {
    const message = await refusal({ id: 'mapper', namespaces: { mapper: { POST: 'nothing:here' } } });
    expect(message).to.contain("'nothing:here'");
    expect(message).to.contain("'mapper'");
  });

  it('a route without a permission', async () => {
    const message = await refusal({ id: 'open-door', namespaces: { door: { GET: 'public' } } }, routing('/api/door'));
    expect(message).to.contain('/api/door');
    expect(message).to.contain("'open-door'");
    expect(message).to.contain('must declare a permission');
  });

  it('a plugin requiring a plugin disabled through CMS_PLUGINS_DISABLED stops the boot naming both', async () => {
    const root = pluginRoot(cleanup);
    const base = writePlugin(root, { id: 'base-lib' });
    const user = writePlugin(root, { id: 'base-user', requires: ['base-lib'] });
    const dataDir = tempDir('cms-loader-data-');
    cleanup.push(dataDir);
    const config = loadConfig({
      ignoreFile: true,
      env: { CMS_PLUGINS_DISABLED: 'base-lib' },
      overrides: {
        port: 0,
        dataDir,
        logLevel: 'silent',
        jobs: { enabled: false },
        pool: { maxThreads: 1 },
        plugins: { paths: [base, user] },
      },
    });
    expect(config.plugins.disabled).to.deep.equal(['base-lib']);
    const { message } = await startFailure(createKernel({ config, logger: createLogger('silent') }));
    expect(message).to.contain("'base-user'");
    expect(message).to.contain("'base-lib'");
    expect(message).to.contain('disabled');
  });
});

describe('loader: disabled plugins are never imported', function () {
  this.timeout(30000);
  const cleanup = useCleanup();
  let exploding: string;
  before(() => {
    exploding = writePlugin(
      pluginRoot(cleanup),
      { id: 'explosive' },
      "throw new Error('explosive was imported');\nexport default { register() {} };\n",
    );
  });

  it('boots when the plugin is in plugins.disabled, and lists it as disabled', async () => {
    const k = await startTestKernel({ plugins: [exploding], config: { plugins: { disabled: ['explosive'] } } });
    try {
      const record = k.kernel.loader.describe().find((p) => p.id === 'explosive');
      expect(record).to.include({ enabled: false, state: 'disabled' });
      const health = await k.request('/api/health');
      expect(health.status).to.equal(200);
    } finally {
      await k.close();
    }
  });

  it('fails, with the import error, when the plugin is not disabled', async () => {
    const err = await bootFailure({ plugins: [exploding] });
    expect(err.message).to.contain("'explosive'");
    expect(err.message).to.contain('explosive was imported');
  });
});

describe('loader: boot order', function () {
  this.timeout(30000);
  const cleanup = useCleanup();
  after(() => {
    delete g.__cmsLoaderTest;
  });

  it('registers and boots in requires order; a core plugin boots after its setup dependency, in CORE', async () => {
    const root = pluginRoot(cleanup);
    const code = (id: string) => `const order = (globalThis.__cmsLoaderTest ??= []);
export default {
  register() { order.push('register:${id}'); },
  boot({ container }) { order.push('boot:${id}@' + container.resolve('kernelState').phase()); },
  close() { order.push('close:${id}'); },
};
`;
    // Listed dependants first: the order must come from requires, not from plugins.paths.
    const app = writePlugin(root, { id: 'order-app', phase: 'core', requires: ['order-lib', 'order-base'] }, code('order-app'));
    const lib = writePlugin(root, { id: 'order-lib', phase: 'core', requires: ['order-base'] }, code('order-lib'));
    const late = writePlugin(root, { id: 'order-late', phase: 'full', requires: ['order-app'] }, code('order-late'));
    const base = writePlugin(root, { id: 'order-base', phase: 'setup' }, code('order-base'));
    g.__cmsLoaderTest = [];
    const k = await startTestKernel({ plugins: [late, app, lib, base] });
    let order: Order;
    try {
      order = [...g.__cmsLoaderTest];
    } finally {
      await k.close();
    }
    expect(order).to.deep.equal([
      'register:order-base',
      'register:order-lib',
      'register:order-app',
      'register:order-late',
      'boot:order-base@SETUP',
      'boot:order-lib@CORE',
      'boot:order-app@CORE',
      'boot:order-late@FULL',
    ]);
    // close runs in reverse boot order
    expect(g.__cmsLoaderTest.filter((e) => e.startsWith('close:'))).to.deep.equal([
      'close:order-late',
      'close:order-app',
      'close:order-lib',
      'close:order-base',
    ]);
  });
});

describe('loader: GET /api/system/plugins', function () {
  this.timeout(30000);
  const k = useTestKernel(() => {
    const root = pluginRoot(cleanup);
    const provider = writePlugin(
      root,
      { id: 'provider', version: '2.3.4', phase: 'full', provides: { healthChecks: ['provider-check'] } },
      `export default {
  register({ registries }) { registries.healthChecks.add({ id: 'provider-check', check: async () => ({ status: 'ok' }) }); },
  async boot() {},
};
`,
    );
    const sleeper = writePlugin(root, { id: 'sleeper', version: '0.0.1' });
    return {
      plugins: [fixturePlugin('test-identity'), provider, sleeper],
      config: { plugins: { disabled: ['sleeper'] } },
    };
  });
  // Registered after the kernel's hooks: the kernel closes before its plugin folders are removed.
  const cleanup = useCleanup();

  it('lists every plugin with id, version, enabled, state, phase, provides and bootMs', async () => {
    const res = await k.request('/api/system/plugins', { identity: 'admin' });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { success: boolean; data: Array<Record<string, any>> };
    expect(body.success).to.equal(true);
    const byId = new Map(body.data.map((p) => [p.id, p]));
    expect([...byId.keys()]).to.include.members(['health', 'system', 'openapi', 'test-identity', 'provider', 'sleeper']);

    const provider = byId.get('provider')!;
    expect(provider).to.include({ id: 'provider', version: '2.3.4', enabled: true, state: 'booted', phase: 'full', source: 'path' });
    expect(provider.provides).to.deep.equal({ healthChecks: ['provider-check'] });
    expect(provider.bootMs).to.be.a('number').and.to.be.at.least(0);
    expect(provider).not.to.have.property('dir');

    const identity = byId.get('test-identity')!;
    expect(identity).to.include({ enabled: true, state: 'booted', phase: 'setup' });
    expect(identity.provides).to.deep.equal({ identityResolvers: ['test-header'] });

    for (const id of ['health', 'system', 'openapi']) {
      expect(byId.get(id)).to.include({ enabled: true, state: 'booted', phase: 'setup', source: 'builtin' });
      expect(byId.get(id)!.bootMs).to.be.a('number');
    }
    expect(byId.get('system')!.routes).to.be.greaterThan(0);
  });

  it('lists disabled plugins with enabled false', async () => {
    const res = await k.request('/api/system/plugins', { identity: 'admin' });
    const { data } = (await res.json()) as { data: Array<Record<string, any>> };
    const sleeper = data.find((p) => p.id === 'sleeper');
    expect(sleeper).to.include({ enabled: false, state: 'disabled', version: '0.0.1' });
    expect(sleeper).not.to.have.property('bootMs');
  });

  it('GET /api/system/plugins/:id describes one plugin; an unknown id is 404', async () => {
    const one = await k.request('/api/system/plugins/provider', { identity: 'admin' });
    expect(one.status).to.equal(200);
    expect(((await one.json()) as any).data).to.include({ id: 'provider', state: 'booted' });
    const none = await k.request('/api/system/plugins/nope', { identity: 'admin' });
    expect(none.status).to.equal(404);
  });

  it('a guest gets 401 and a viewer gets 403', async () => {
    const guest = await k.request('/api/system/plugins');
    expect(guest.status).to.equal(401);
    const viewer = await k.request('/api/system/plugins', { identity: 'viewer' });
    expect(viewer.status).to.equal(403);
    const editor = await k.request('/api/system/plugins', { identity: 'editor' });
    expect(editor.status).to.equal(403);
  });
});

describe('loader: the example third-party plugin (examples/hello-plugin)', function () {
  this.timeout(30000);

  it('loads through plugins.paths: route, container service and health check', async () => {
    const k = await startTestKernel({ plugins: [HELLO_PLUGIN] });
    try {
      const res = await k.request('/api/hello/ada');
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ success: true, data: { message: 'Hello, ada!' } });

      const health = await k.request('/api/system/health');
      expect(health.status).to.equal(200);
      const { data } = (await health.json()) as { data: { checks: Record<string, { status: string }> } };
      expect(data.checks).to.have.property('hello');
      expect(data.checks.hello!.status).to.equal('ok');

      const record = k.kernel.loader.describe().find((p) => p.id === 'hello');
      expect(record).to.include({ source: 'path', state: 'booted', version: '0.1.0' });
      expect(record!.containerKeys).to.deep.equal(['greeter']);
    } finally {
      await k.close();
    }
  });

  it('reads plugins.options.hello.greeting', async () => {
    const k = await startTestKernel({ plugins: [HELLO_PLUGIN], config: { plugins: { options: { hello: { greeting: 'Hi' } } } } });
    try {
      const res = await k.request('/api/hello/ada');
      expect(res.status).to.equal(200);
      expect(((await res.json()) as any).data.message).to.equal('Hi, ada!');
    } finally {
      await k.close();
    }
  });
});

describe('loader: a plugin installed as an npm package', function () {
  this.timeout(30000);
  let project: string;
  let dataDir: string;
  let kernel: Kernel | undefined;
  before(() => {
    project = tempDir('cms-npm-project-');
    dataDir = tempDir('cms-npm-data-');
    const pkg = join(project, 'node_modules', 'cms-plugin-greeter');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: 'cms-plugin-greeter', version: '3.1.0', type: 'module', main: 'index.js' }),
    );
    writeFileSync(
      join(pkg, 'plugin.json'),
      JSON.stringify({ id: 'greeter', name: 'Greeter', version: '3.1.0', kernel: '^1.0.0', namespaces: { greeter: { GET: 'public' } } }),
    );
    writeFileSync(
      join(pkg, 'index.js'),
      `export default {
  register({ routes, options }) {
    routes.add({
      method: 'GET', path: '/api/greeter/:name', permission: 'public', summary: 'Greets', request: {},
      handler: ({ params }) => ({ text: (options.word ?? 'Hey') + ' ' + params.name }),
    });
  },
};
`,
    );
    writeFileSync(
      join(project, 'cms.config.json'),
      JSON.stringify({ plugins: { paths: ['cms-plugin-greeter'], options: { greeter: { word: 'Howdy' } } } }),
    );
  });
  after(async () => {
    await kernel?.close();
    rmSync(project, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is found by package name from the config folder and its route answers', async () => {
    const loaded = loadConfig({ cwd: project, env: {} });
    expect(loaded.plugins.paths).to.deep.equal(['cms-plugin-greeter']);
    const config = {
      ...loaded,
      port: 0,
      dataDir,
      dataPath: dataDir,
      logLevel: 'silent' as const,
      jobs: { ...loaded.jobs, enabled: false },
      plugins: { ...loaded.plugins, disabled: ['setup'] },
    };
    kernel = createKernel({ config, logger: createLogger('silent') });
    await kernel.start();
    const res = await fetch(`${kernel.url}/api/greeter/ada`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ success: true, data: { text: 'Howdy ada' } });
    const record = kernel.loader.describe().find((p) => p.id === 'greeter');
    expect(record).to.include({ source: 'package', state: 'booted', version: '3.1.0' });
    expect(record!.dir).to.equal(join(project, 'node_modules', 'cms-plugin-greeter'));
  });

  it('an npm package that is not installed stops the boot naming it', async () => {
    const config = loadConfig({
      cwd: project,
      env: {},
      overrides: { port: 0, dataDir, logLevel: 'silent', plugins: { paths: ['cms-plugin-missing'] } },
    });
    const failure = await startFailure(createKernel({ config, logger: createLogger('silent') }));
    expect(failure.message).to.contain("'cms-plugin-missing'");
  });
});

describe('loader: plugin state from register to boot to close', function () {
  this.timeout(30000);
  const cleanup = useCleanup();

  it("a factory gives each kernel its own closure; boot()'s return value reaches close(); onClose callbacks run first, last added first", async () => {
    const root = pluginRoot(cleanup);
    const dir = writePlugin(
      root,
      { id: 'stateful' },
      `
const log = (globalThis.__cmsStateLog ??= []);
export default () => {
  let registered = 0;
  return {
    register() { registered++; },
    boot({ onClose }) {
      onClose(() => log.push('first onClose'));
      onClose(() => log.push('second onClose'));
      return { registered, token: Math.random() };
    },
    close({ state }) { log.push('close ' + state.registered + ' ' + typeof state.token); },
  };
};
`,
    );
    const log: string[] = ((globalThis as { __cmsStateLog?: string[] }).__cmsStateLog = []);
    const a = await startTestKernel({ plugins: [dir] });
    const b = await startTestKernel({ plugins: [dir] });
    await a.close();
    await b.close();
    // Each kernel's closure counted one register() of its own (a module-level counter would say 2 for the second).
    expect(log).to.deep.equal(['second onClose', 'first onClose', 'close 1 number', 'second onClose', 'first onClose', 'close 1 number']);
  });
});

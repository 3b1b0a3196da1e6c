import { expect } from 'chai';
import { z } from 'zod';
import { resolvePluginOptions, type ConfigLayers } from '../../kernel/plugin-config.js';
import { mapPluginEnv } from '../../kernel/plugin-env.js';

/** One configuration path: the kernel's merge order, its error format and what it does with a bad setting. */
describe('plugin configuration: one merge order, one error format', function () {
  const schema = z.strictObject({
    folder: z.string().default('media'),
    limit: z.number().int().min(1).default(10),
    smtp: z.strictObject({ host: z.string().optional(), port: z.number().int().default(25) }).default({ port: 25 }),
  });
  const layers = (over: Partial<ConfigLayers>): ConfigLayers => ({
    pluginId: 'demo',
    options: {},
    env: mapPluginEnv({}, {}),
    settingsMapping: { DEMO_FOLDER: { option: 'folder' }, DEMO_LIMIT: { option: 'limit' }, DEMO_HOST: { option: 'smtp.host' } },
    settings: new Map(),
    ...over,
  });
  const env = (vars: Record<string, string>) =>
    mapPluginEnv(
      {
        DEMO_FOLDER: { option: 'folder', type: 'string', secret: false },
        DEMO_PORT: { option: 'smtp.port', type: 'int', secret: false },
        DEMO_LIMIT: { option: 'limit', type: 'int', secret: false },
      },
      vars,
    );

  it('defaults < System Settings < plugins.options < environment, objects merged key by key', function () {
    expect(resolvePluginOptions(schema, layers({})).value).to.deep.equal({ folder: 'media', limit: 10, smtp: { port: 25 } });
    const settings = new Map<string, unknown>([
      ['DEMO_FOLDER', ' library '],
      ['DEMO_HOST', 'mail.example.com'],
    ]);
    const withSettings = resolvePluginOptions(schema, layers({ settings }));
    expect(withSettings.value).to.deep.equal({ folder: 'library', limit: 10, smtp: { host: 'mail.example.com', port: 25 } });
    expect(withSettings.sourceOf('folder')).to.equal('System Setting DEMO_FOLDER');
    expect(withSettings.sourceOf('limit')).to.equal('default');
    const withOptions = resolvePluginOptions(schema, layers({ settings, options: { folder: 'files', smtp: { port: 2525 } } }));
    expect(withOptions.value).to.deep.equal({ folder: 'files', limit: 10, smtp: { host: 'mail.example.com', port: 2525 } });
    expect(withOptions.sourceOf('folder')).to.equal('plugins.options.demo.folder');
    expect(withOptions.sourceOf('smtp.host')).to.equal('System Setting DEMO_HOST');
    const all = resolvePluginOptions(
      schema,
      layers({ settings, options: { folder: 'files' }, env: env({ DEMO_FOLDER: 'from-env', DEMO_PORT: '587' }) }),
    );
    expect(all.value).to.deep.equal({ folder: 'from-env', limit: 10, smtp: { host: 'mail.example.com', port: 587 } });
    expect(all.sourceOf('folder')).to.equal('environment variable DEMO_FOLDER');
    expect(all.sourceOf('smtp.port')).to.equal('environment variable DEMO_PORT');
  });

  it('unset, null and blank settings count as unset', function () {
    const settings = new Map<string, unknown>([
      ['DEMO_FOLDER', '   '],
      ['DEMO_LIMIT', null],
    ]);
    expect(resolvePluginOptions(schema, layers({ settings })).value).to.deep.equal({ folder: 'media', limit: 10, smtp: { port: 25 } });
  });

  it('a bad file option or variable stops the boot, naming the option path and its source, never the value', function () {
    const bad = () => resolvePluginOptions(schema, layers({ options: { limit: 0, fodler: 'x' } }));
    expect(bad).to.throw(
      /^Invalid configuration of plugin 'demo' \(plugins\.options\['demo'\], its environment variables and System Settings\): /,
    );
    expect(bad).to.throw(/limit \(plugins\.options\.demo\.limit\): /);
    expect(bad).to.throw(/\(root\) \(plugins\.options\.demo\): .*fodler/);
    const secret = 'not-a-number-s3cr3t';
    let message = '';
    try {
      resolvePluginOptions(schema, layers({ env: env({ DEMO_LIMIT: secret }) }));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.include('limit (environment variable DEMO_LIMIT): ').and.not.include(secret);
  });

  it('a System Setting that does not fit is left out (and named) instead of stopping the boot', function () {
    const dropped: Array<[string, string]> = [];
    const settings = new Map<string, unknown>([
      ['DEMO_LIMIT', -3],
      ['DEMO_FOLDER', 'library'],
    ]);
    const out = resolvePluginOptions(schema, layers({ settings }), (key, message) => dropped.push([key, message]));
    expect(out.value).to.deep.equal({ folder: 'library', limit: 10, smtp: { port: 25 } });
    expect(dropped.map(([k]) => k)).to.deep.equal(['DEMO_LIMIT']);
    expect(dropped[0]![1]).to.match(/>=1|at least|too small/i);
  });

  it('a setting that does not fit is not dropped when a file option sets the same path', function () {
    const settings = new Map<string, unknown>([['DEMO_LIMIT', -3]]);
    expect(resolvePluginOptions(schema, layers({ settings, options: { limit: 4 } })).value.limit).to.equal(4);
  });
});

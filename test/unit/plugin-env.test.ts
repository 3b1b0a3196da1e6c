import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { BootError } from '../../kernel/errors.js';
import { parseManifest } from '../../kernel/manifest.js';
import { mapPluginEnv } from '../../kernel/plugin-env.js';
import { PROJECT_ROOT } from '../../kernel/version.js';

const PLUGINS = join(PROJECT_ROOT, 'plugins');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|js|mjs|cjs|svelte)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const manifests = () =>
  readdirSync(PLUGINS)
    .filter((id) => statSync(join(PLUGINS, id, 'plugin.json'), { throwIfNoEntry: false })?.isFile())
    .map((id) => parseManifest(JSON.parse(readFileSync(join(PLUGINS, id, 'plugin.json'), 'utf8')), `plugins/${id}/plugin.json`));

describe('plugin settings from the environment', function () {
  it('no plugin source reads process.env (settings come through plugins.options and the manifest env mapping)', function () {
    const offenders = sources(PLUGINS).flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          /process\s*\.\s*env|process\s*\[\s*['"]env['"]\s*\]/.test(line) ? [`${relative(PROJECT_ROOT, file)}:${i + 1}`] : [],
        ),
    );
    expect(offenders, 'read the variable through the manifest `env` field and ctx.envOptions').to.deep.equal([]);
  });

  it('the README table lists every env entry of every plugins/*/plugin.json, with its plugin, option key and type', function () {
    // The former README from this heading on: docs/configuration.md, then the other pages of docs/ (a plugin's own
    // page, e.g. docs/operations/content-packages-and-sync.md, may hold its rows of the table).
    const others = ['features', 'guides', 'operations', 'reference'].flatMap((dir) =>
      readdirSync(join(PROJECT_ROOT, 'docs', dir))
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => readFileSync(join(PROJECT_ROOT, 'docs', dir, f), 'utf8')),
    );
    const readme = [readFileSync(join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8'), ...others].join('\n');
    const start = readme.indexOf('## Plugin settings from the environment');
    expect(start, 'README section "Plugin settings from the environment" not found').to.be.greaterThan(-1);
    const rows = new Set(
      readme
        .slice(start)
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .map((l) =>
          l
            .split('|')
            .slice(1, 5)
            .map((c) => c.trim().replace(/^`|`$/g, ''))
            .join(' '),
        ),
    );
    const missing: string[] = [];
    let count = 0;
    for (const m of manifests()) {
      for (const [name, entry] of Object.entries(m.env)) {
        count++;
        const type = entry.type + (entry.secret ? ', secret' : '');
        const row = [name, m.id, entry.option, type].join(' ');
        if (!rows.has(row)) missing.push(`| \`${name}\` | \`${m.id}\` | \`${entry.option}\` | ${type} | ... |`);
      }
    }
    expect(count, 'no plugin declares env variables').to.be.greaterThan(10);
    expect(missing, 'rows missing from the README table').to.deep.equal([]);
  });

  it('maps variables to nested option paths with their types; blank counts as unset', function () {
    const mapping = parseManifest(
      {
        id: 'x',
        name: 'X',
        version: '1.0.0',
        kernel: '^1.0.0',
        env: {
          SMTP_HOST: { option: 'smtp.host' },
          SMTP_PORT: { option: 'smtp.port', type: 'int' },
          SMTP_SECURE: { option: 'smtp.secure', type: 'bool' },
          X_RATIO: { option: 'ratio', type: 'number' },
          X_TYPES: { option: 'types', type: 'list' },
          X_JSON: { option: 'obj', type: 'json' },
          X_BLANK: { option: 'blank' },
        },
      },
      'test',
    ).env;
    const { values, sources } = mapPluginEnv(mapping, {
      SMTP_HOST: 'mail.example.com',
      SMTP_PORT: '2525',
      SMTP_SECURE: 'yes',
      X_RATIO: '1.5',
      X_TYPES: 'image/*, text/plain,',
      X_JSON: '{"a":1}',
      X_BLANK: '  ',
      OTHER: 'ignored',
    });
    expect(values).to.deep.equal({
      smtp: { host: 'mail.example.com', port: 2525, secure: true },
      ratio: 1.5,
      types: ['image/*', 'text/plain'],
      obj: { a: 1 },
    });
    expect(sources).to.deep.include({ 'smtp.port': 'SMTP_PORT', ratio: 'X_RATIO' });
    // Text that does not fit its type is handed on, so the plugin's own check names the variable.
    expect(mapPluginEnv(mapping, { SMTP_PORT: 'abc', SMTP_SECURE: 'maybe' }).values).to.deep.equal({
      smtp: { port: 'abc', secure: 'maybe' },
    });
  });

  it('aliases (first listed wins) and one * in a name; a bad json secret is refused without its value', function () {
    const env = {
      A_ID: { option: 'google.clientId', type: 'string' as const, secret: false },
      LEGACY_ID: { option: 'google.clientId', type: 'string' as const, secret: false },
      'OIDC_*_CLIENT_SECRET': { option: 'clientSecrets.*', type: 'string' as const, secret: true },
      KEYS: { option: 'keys', type: 'json' as const, secret: true },
    };
    expect(mapPluginEnv(env, { LEGACY_ID: 'old', A_ID: 'new' }).values).to.deep.equal({ google: { clientId: 'new' } });
    expect(mapPluginEnv(env, { LEGACY_ID: 'old' }).values).to.deep.equal({ google: { clientId: 'old' } });
    const star = mapPluginEnv(env, {
      OIDC_OPEN_CLIENT_SECRET: 's1',
      OIDC_STAFF_SSO_CLIENT_SECRET: 's2',
      OIDC_CLIENT_SECRET: 'not matched',
    });
    expect(star.values).to.deep.equal({ clientSecrets: { OPEN: 's1', STAFF_SSO: 's2' } });
    expect(star.sources).to.deep.equal({
      'clientSecrets.OPEN': 'OIDC_OPEN_CLIENT_SECRET',
      'clientSecrets.STAFF_SSO': 'OIDC_STAFF_SSO_CLIENT_SECRET',
    });
    expect(() => mapPluginEnv(env, { KEYS: '{"secret-value' }))
      .to.throw(BootError, 'KEYS')
      .with.property('message')
      .that.does.not.include('secret-value');
  });

  it('the manifest schema refuses a malformed env field', function () {
    const bad = (env: unknown) => () => parseManifest({ id: 'x', name: 'X', version: '1.0.0', kernel: '^1.0.0', env }, 'test');
    expect(bad({ smtp_host: { option: 'host' } })).to.throw(/env/);
    expect(bad({ SMTP_HOST: { option: 'host', type: 'float' } })).to.throw(/type/);
    expect(bad({ SMTP_HOST: { option: 'host', unknown: 1 } })).to.throw(/SMTP_HOST/);
  });
});

import { expect } from 'chai';
import { join } from 'node:path';
import type { z } from 'zod';
import { readManifest } from '../../kernel/manifest.js';
import { resolvePluginOptions } from '../../kernel/plugin-config.js';
import { mapPluginEnv } from '../../kernel/plugin-env.js';
import type { PluginDefinition } from '../../kernel/plugin.js';
import { DIST_ROOT } from '../../kernel/version.js';
import { optionsSchema as oidcSchema, variablesOf } from '../../plugins/auth-oidc/provider-settings.js';
import mailPlugin from '../../plugins/mail/index.js';
import setupPlugin from '../../plugins/setup/index.js';
import { updateCheckOptionsSchema } from '../../plugins/update-check/options.js';

/** The schema a plugin's definition declares (a factory is called, as the kernel does). */
const schemaOf = (plugin: unknown) => {
  const definition = (typeof plugin === 'function' ? plugin() : plugin) as PluginDefinition;
  return definition.options as z.ZodType<Record<string, any>>;
};

/** The kernel's one configuration path for a built-in plugin: its manifest's env, the file's options, no settings. */
function resolve(id: string, schema: z.ZodType<Record<string, any>>, env: Record<string, string>, options: object = {}) {
  const manifest = readManifest(join(DIST_ROOT, 'plugins', id, 'plugin.json'));
  return resolvePluginOptions(schema, {
    pluginId: id,
    options,
    env: mapPluginEnv(manifest.env, env),
    settingsMapping: {},
    settings: new Map(),
  });
}

describe('plugin env blocks and fallbacks (manifest block, required, under)', function () {
  describe('kernel', function () {
    const mapping = {
      A_HOST: { option: 'a.host', type: 'string', secret: false, block: 'a', required: true },
      A_PORT: { option: 'a.port', type: 'int', secret: false, block: 'a' },
      B: { option: 'b', type: 'string', secret: false, under: true },
    } as const;

    it('leaves out a block whose required variable is unset', function () {
      const env = mapPluginEnv(mapping, { A_PORT: '25' });
      expect(env.values).to.deep.equal({});
      expect(env.sources).to.deep.equal({});
      expect(env.ranks).to.equal(undefined);
    });

    it('ranks a complete block as replacing and a fallback as under', function () {
      const env = mapPluginEnv(mapping, { A_HOST: 'h', A_PORT: '25', B: 'x' });
      expect(env.values).to.deep.equal({ a: { host: 'h', port: 25 }, b: 'x' });
      expect(env.ranks).to.deep.equal({ a: 'replaces', b: 'under' });
    });

    it('refuses a block that is not at or above the option', function () {
      expect(() => mapPluginEnv({ X: { option: 'a.b', type: 'string', secret: false, block: 'c' } }, {})).to.throw(
        /Invalid env entry X: block/,
      );
    });
  });

  describe('mail: SMTP_HOST replaces the whole smtp block', function () {
    const schema = schemaOf(mailPlugin);
    const file = { from: 'CMS <file@example.com>', smtp: { host: 'file.example.com', port: 465, secure: true, user: 'u' } };

    it('the file alone', function () {
      expect(resolve('mail', schema, {}, file).value.smtp).to.deep.equal(file.smtp);
    });

    it('SMTP_PORT without SMTP_HOST does not count', function () {
      const out = resolve('mail', schema, { SMTP_PORT: '2525', MAIL_FROM: 'CMS <env@example.com>' }, file);
      expect(out.value).to.deep.equal({ from: 'CMS <env@example.com>', smtp: file.smtp });
    });

    it('with SMTP_HOST: the variables or the defaults, never the file', function () {
      const out = resolve('mail', schema, { SMTP_HOST: 'env.example.com', SMTP_USER: 'e' }, file);
      expect(out.value.smtp).to.deep.equal({ host: 'env.example.com', port: 587, secure: false, user: 'e' });
      expect(out.sourceOf('smtp.port')).to.equal('default');
    });
  });

  describe('setup: CMS_SETUP_ADMIN_* are one block, environmentAdmin', function () {
    const schema = schemaOf(setupPlugin);
    const vars = { CMS_SETUP_ADMIN_EMAIL: 'env@example.com', CMS_SETUP_ADMIN_PASSWORD: 'env password', CMS_SETUP_ADMIN_USERNAME: 'env' };

    it('counts when both email and password are set', function () {
      expect(resolve('setup', schema, vars).value.environmentAdmin).to.deep.equal({
        email: 'env@example.com',
        password: 'env password',
        username: 'env',
      });
      expect(resolve('setup', schema, { ...vars, CMS_SETUP_ADMIN_PASSWORD: '' }).value.environmentAdmin).to.equal(undefined);
    });

    it('is checked by the account creation, not at boot: admin@localhost and a short password pass the schema', function () {
      const loose = { CMS_SETUP_ADMIN_EMAIL: 'admin@localhost', CMS_SETUP_ADMIN_PASSWORD: 'short' };
      expect(resolve('setup', schema, loose).value.environmentAdmin).to.deep.equal({ email: 'admin@localhost', password: 'short' });
    });

    it('the file admin is its own option (the boot prefers it)', function () {
      const admin = { email: 'file@example.com', password: 'file password' };
      expect(resolve('setup', schema, vars, { admin }).value.admin).to.deep.equal(admin);
    });
  });

  describe('update-check: the file option ci wins over CI', function () {
    it('CI counts without the option, and the option wins', function () {
      expect(resolve('update-check', updateCheckOptionsSchema, { CI: 'true' }).value.ci).to.equal('true');
      expect(resolve('update-check', updateCheckOptionsSchema, { CI: 'true' }, { ci: false }).value.ci).to.equal(false);
      expect(resolve('update-check', updateCheckOptionsSchema, {}, { geolocationUrl: 'OFF' }).value.geolocationUrl).to.equal('off');
    });
  });

  describe('auth-oidc: the provider variables exist only in the environment', function () {
    it('hands the variables back by name', function () {
      const out = resolve('auth-oidc', oidcSchema, { OAUTH_GOOGLE_CLIENT_ID: 'id', OIDC_ACME_CLIENT_SECRET: 's' });
      expect(variablesOf(out.value as never, out.sourceOf)).to.deep.equal({ OAUTH_GOOGLE_CLIENT_ID: 'id', OIDC_ACME_CLIENT_SECRET: 's' });
    });

    it('refuses them in the file', function () {
      const out = resolve('auth-oidc', oidcSchema, {}, { presets: { google: { clientId: 'id' } } });
      expect(() => variablesOf(out.value as never, out.sourceOf)).to.throw(/Unrecognized key: "presets"/);
    });
  });
});

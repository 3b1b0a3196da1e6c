import { asFunction } from 'awilix';
import { definePlugin, type ModelMap } from '../../kernel/sdk.js';
import type { UsersService } from '../auth/public.js';
import { IdentityLinks } from './identity-links.js';
import { IdentityProviders, PROVIDER_SETTINGS } from './identity-providers.js';
import { OIDC_MIGRATIONS } from './migrations.js';
import { OidcIdentity } from './models/oidc-identity.js';
import { OidcClients } from './oidc-clients.js';
import { optionsSchema, resolveProviders, variablesOf, type ProviderSettings } from './provider-settings.js';
import { identityRoutes } from './routes-identities.js';
import { signInRoutes } from './routes-sign-in.js';

/** The provider System Settings that are set, from the optional settings store (the setup plugin). */
async function providerSettings(cradle: object): Promise<Record<string, string>> {
  let settings: { get(key: string): Promise<unknown> } | undefined;
  try {
    settings = (cradle as { settings?: typeof settings }).settings;
  } catch {
    return {};
  }
  if (!settings) return {};
  const out: Record<string, string> = {};
  for (const key of PROVIDER_SETTINGS) {
    const value = await settings.get(key);
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return out;
}

/** A factory: the providers each kernel resolved at register time, reported at boot. */
export default definePlugin(() => {
  let own: { providers: ProviderSettings[]; publicUrlSet: boolean } | null = null;
  return {
    options: optionsSchema,
    register({ container, routes, migrations, models, config, logger, options: o, pluginConfig }) {
      // The provider variables (plugin.json `env`), read by the kernel when it started and merged into the options.
      const env = variablesOf(o, (path) => pluginConfig.sourceOf(path));
      const providers = resolveProviders(o, env);
      own = { providers, publicUrlSet: Boolean(config.publicUrl ?? o.publicUrl) };
      // Computed per request: the port may only be known once the server listens; never the request's Host header.
      const publicUrl = () => config.publicUrl ?? o.publicUrl ?? `http://${config.host}:${config.port}`;
      models.add(OidcIdentity);
      for (const m of OIDC_MIGRATIONS) migrations.add(m);
      container.register(
        'identityProviders',
        asFunction(
          (cradle: object) =>
            new IdentityProviders(
              (vars) => resolveProviders(o, vars),
              publicUrl,
              () => providerSettings(cradle),
              env,
            ),
        ).singleton(),
      );
      container.register('oidcClients', asFunction(() => new OidcClients(logger)).singleton());
      container.register(
        'oidcLinks',
        asFunction(({ users, models }: { users: UsersService; models: ModelMap }) => new IdentityLinks(models, users)).singleton(),
      );
      for (const route of [...signInRoutes, ...identityRoutes]) routes.add(route);
    },
    boot({ container, logger, follow }) {
      // A provider configured in the System Settings on any instance counts from the next sign-in here.
      container.resolve<IdentityProviders>('identityProviders').follow(follow);
      if (!own) return;
      const active = own.providers.filter((p) => p.active);
      if (active.length) logger.info({ providers: active.map((p) => p.id) }, 'identity providers active');
      for (const p of own.providers) {
        // A provider written into the options but without its secret is worth a warning; an unused preset is not.
        if (!p.active && p.source === 'options') {
          logger.warn({ provider: p.id }, `identity provider '${p.id}' is inactive: set ${p.missing} (or its clientSecret option)`);
        }
      }
      if (active.length && !own.publicUrlSet) {
        logger.warn(
          'identity providers redirect to http://<host>:<port>; set CMS_PUBLIC_URL (or the publicUrl option) to the address browsers use',
        );
      }
      own = null;
    },
  };
});

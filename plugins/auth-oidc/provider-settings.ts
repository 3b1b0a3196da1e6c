import { z } from 'zod';
import { BootError } from '../../kernel/sdk.js';

const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
/** The least-privileged built-in role a person can sign in with (guest has no session). */
const DEFAULT_ROLE = 'viewer';

const providerSchema = z
  .strictObject({
    issuer: z.string().url(),
    clientId: z.string().min(1).max(512),
    /** Better kept out of the config file: OIDC_<ID>_CLIENT_SECRET in the environment. */
    clientSecret: z.string().min(1).max(4096).optional(),
    displayName: z.string().min(1).max(64).optional(),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope token'))
      .min(1)
      .max(20)
      .refine((s) => s.includes('openid'), 'must include openid')
      .default(DEFAULT_SCOPES),
    allowSignUp: z.boolean().default(false),
    defaultRole: z
      .string()
      .min(1)
      .max(64)
      .refine((r) => r !== 'admin' && r !== 'guest', 'admin and guest cannot be given by sign-up')
      .default(DEFAULT_ROLE),
    /** Plain-http issuer: for a provider on loopback in tests only. */
    allowInsecureRequests: z.boolean().default(false),
  })
  .refine((p) => p.allowInsecureRequests || p.issuer.startsWith('https://'), {
    message: 'issuer must use https:// (allowInsecureRequests is for loopback tests only)',
    path: ['issuer'],
  });

/** plugins.options['auth-oidc'], with the provider variables the kernel merged in (plugin.json `env`). */
export const optionsSchema = z.strictObject({
  /** The address the provider redirects back to (CMS_PUBLIC_URL overrides); never taken from the request. */
  publicUrl: z.string().url().optional(),
  providers: z
    .record(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'lower-case letters, digits and dashes (at most 32)'), providerSchema)
    .default({}),
  /** Only from the environment (variablesOf refuses them in the file): the presets' variables, by preset. */
  presets: z.record(z.string(), z.record(z.string(), z.string())).optional(),
  /** Only from the environment: OIDC_<ID>_CLIENT_SECRET, by what its `*` matched. */
  clientSecrets: z.record(z.string(), z.string()).optional(),
});
export type OidcOptions = z.output<typeof optionsSchema>;

export interface ProviderSettings {
  id: string;
  displayName: string;
  /** Secrets present: the provider can be used. */
  active: boolean;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  allowSignUp: boolean;
  defaultRole: string;
  allowInsecureRequests: boolean;
  /** Written in the options, or a well-known preset enabled by environment variables. */
  source: 'options' | 'preset';
  /** What an inactive provider lacks (for the boot log; names of variables, never values). */
  missing?: string;
}

type Env = Record<string, string | undefined>;

const FROM_ENV = 'environment variable ';

/**
 * The provider variables the kernel merged into the options (`presets`, `clientSecrets`), keyed by variable
 * name again: the presets and the System Settings use those names (applied per request). These keys exist
 * only in the environment: one written in plugins.options is refused, as before the one configuration path.
 */
export function variablesOf(options: OidcOptions, sourceOf: (path: string) => string): Env {
  const leaves: Array<[string, string]> = [
    ...Object.entries(options.presets ?? {}).flatMap(([id, vars]) =>
      Object.entries(vars).map(([key, value]): [string, string] => [`presets.${id}.${key}`, value]),
    ),
    ...Object.entries(options.clientSecrets ?? {}).map(([key, value]): [string, string] => [`clientSecrets.${key}`, value]),
  ];
  const out: Env = {};
  for (const [path, value] of leaves) {
    const source = sourceOf(path);
    if (!source.startsWith(FROM_ENV))
      throw new BootError(`Invalid plugins.options['auth-oidc']: Unrecognized key: "${path.split('.')[0]}" (environment variables only)`);
    out[source.slice(FROM_ENV.length)] = value;
  }
  return out;
}

/** The env variable that holds a configured provider's secret. */
export const secretVariable = (id: string) => `OIDC_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_CLIENT_SECRET`;

function preset(
  id: string,
  displayName: string,
  issuer: string,
  clientId: string | undefined,
  clientSecret: string | undefined,
  variables: string,
): ProviderSettings {
  const active = Boolean(clientId && clientSecret && issuer);
  if (active && !/^https:\/\/[^/?#]+/.test(issuer)) throw new BootError(`The ${displayName} issuer '${issuer}' must be an https:// URL`);
  return {
    id,
    displayName,
    active,
    source: 'preset',
    issuer,
    clientId: clientId ?? '',
    clientSecret: clientSecret ?? '',
    scopes: DEFAULT_SCOPES,
    allowSignUp: false,
    defaultRole: DEFAULT_ROLE,
    allowInsecureRequests: false,
    ...(active ? {} : { missing: variables }),
  };
}

/** Well-known providers enabled by secrets alone. */
function presets(env: Env): ProviderSettings[] {
  const tenant = env.MICROSOFT_TENANT || 'common';
  return [
    // OAUTH_GOOGLE_* and OIDC_ISSUER_URL: the names the README's environment table used first.
    preset(
      'google',
      'Google',
      'https://accounts.google.com',
      env.GOOGLE_CLIENT_ID ?? env.OAUTH_GOOGLE_CLIENT_ID,
      env.GOOGLE_CLIENT_SECRET ?? env.OAUTH_GOOGLE_CLIENT_SECRET,
      'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET',
    ),
    // openid-client resolves the tenant-specific issuer of `common` / `organizations` ID tokens from their tid claim.
    preset(
      'microsoft',
      'Microsoft',
      `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/v2.0`,
      env.MICROSOFT_CLIENT_ID,
      env.MICROSOFT_CLIENT_SECRET,
      'MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET',
    ),
    preset(
      'gitlab',
      'GitLab',
      env.GITLAB_ISSUER || 'https://gitlab.com',
      env.GITLAB_CLIENT_ID,
      env.GITLAB_CLIENT_SECRET,
      'GITLAB_CLIENT_ID and GITLAB_CLIENT_SECRET',
    ),
    preset(
      'oidc',
      env.OIDC_DISPLAY_NAME || 'OpenID Connect',
      env.OIDC_ISSUER ?? env.OIDC_ISSUER_URL ?? '',
      env.OIDC_CLIENT_ID,
      env.OIDC_CLIENT_SECRET,
      'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET',
    ),
  ];
}

/** Configured providers (options win over a preset of the same id), then the presets. */
export function resolveProviders(options: OidcOptions, env: Env): ProviderSettings[] {
  const configured = Object.entries(options.providers).map(([id, p]): ProviderSettings => {
    const clientSecret = p.clientSecret ?? env[secretVariable(id)] ?? '';
    return {
      id,
      displayName: p.displayName ?? id,
      active: clientSecret !== '',
      source: 'options',
      issuer: p.issuer,
      clientId: p.clientId,
      clientSecret,
      scopes: p.scopes,
      allowSignUp: p.allowSignUp,
      defaultRole: p.defaultRole,
      allowInsecureRequests: p.allowInsecureRequests,
      ...(clientSecret ? {} : { missing: secretVariable(id) }),
    };
  });
  const ids = new Set(configured.map((p) => p.id));
  return [...configured, ...presets(env).filter((p) => !ids.has(p.id))];
}

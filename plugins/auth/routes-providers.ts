import { z } from 'zod';
import { defineRoute, type RouteDefinition, optional } from '../../kernel/sdk.js';

/** What a sign-in plugin (auth-oidc) registers under the container key `identityProviders`. */
export interface IdentityProviderList {
  list(): Promise<Array<{ id: string; displayName: string; type: string; active: boolean; startUrl: string | null }>>;
}

const provider = z.object({ displayName: z.string(), type: z.string(), active: z.boolean(), startUrl: z.string().nullable() });

export const providerRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/get-tokens-provided',
    permission: 'public',
    tags: ['tokens'],
    summary: 'The identity providers a sign-in page can offer, keyed by provider id',
    description:
      'Each known provider with active: true when its secrets are configured (startUrl then starts the sign-in), false otherwise. Empty when the auth-oidc plugin is disabled.',
    request: {},
    response: z.record(z.string(), provider),
    async handler({ scope }) {
      const list = optional(scope, 'identityProviders') ?? null;
      const providers = list ? await list.list() : [];
      return Object.fromEntries(providers.map(({ id, ...rest }) => [id, rest]));
    },
  }),
];

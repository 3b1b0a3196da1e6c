import { z } from 'zod';
import { defineRoute, type RouteDefinition, recordRequestAudit } from '../../kernel/sdk.js';
import { isLocalPath, localPathOr } from '../../kernel/http/local-path.js';
import { OidcProviderError } from './errors.js';
import { clearFlow, finishFlow, startFlow } from './flow-state.js';

/** A path on this site: the kernel's one rule (kernel/http/local-path.ts), shared with the admin UI's sign-in page. */
export { isLocalPath };

const providerParam = z.object({ provider: z.string().min(1).max(64) });
const signInLimit = { points: 30, durationSeconds: 60 };

export const signInRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/auth/oidc/:provider/start',
    openDuring: ['maintenance'],
    permission: 'public',
    tags: ['auth'],
    summary: 'Starts sign-in with an identity provider: 302 to its authorization endpoint',
    description:
      'Sends the browser to the provider with a signed state (HMAC-SHA256), a nonce and a PKCE S256 challenge, and sets a short-lived httpOnly cookie that binds the sign-in to this browser (10 minutes). returnTo is where the browser lands after signing in: a path on this site, default /. Unknown or unconfigured provider: 404 OIDC_PROVIDER_NOT_FOUND; provider unreachable: 502 OIDC_PROVIDER_UNAVAILABLE.',
    envelope: false,
    rateLimit: signInLimit,
    request: {
      params: providerParam,
      query: z.object({ returnTo: z.string().max(2048).refine(isLocalPath, 'a path on this site such as /dashboard').default('/') }),
    },
    async handler({ ctx, params, query, scope }) {
      const providers = scope.identityProviders!;
      const clients = scope.oidcClients;
      const provider = await providers.active(params.provider);
      await clients.configuration(provider);
      const tenantId = await scope.tenants.fromHostname(ctx.hostname);
      const flow = await startFlow(ctx, scope.authSecrets, { providerId: provider.id, tenantId, returnTo: query.returnTo });
      const url = await clients.authorizationUrl(provider, { ...flow, redirectUri: providers.redirectUri(provider.id) });
      ctx.redirect(url.href);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/auth/oidc/:provider/callback',
    openDuring: ['maintenance'],
    permission: 'public',
    tags: ['auth'],
    summary: 'Where the identity provider sends the browser back: signs in and redirects to returnTo',
    description:
      "Checks the state signature, expiry, provider and this browser's sign-in cookie (400 OIDC_STATE_INVALID), exchanges the code with the PKCE verifier and validates the ID token and nonce (400 OIDC_CALLBACK_FAILED). A provider error answers 400 OIDC_PROVIDER_ERROR with providerError. The identity signs in its linked user; otherwise the user with the same email when the provider says it is verified; otherwise, with allowSignUp, a new user with the default role; otherwise 403 OIDC_NO_ACCOUNT. Blocked users: 403 ACCOUNT_BLOCKED. Then 302 to returnTo with the session cookie, or, with 2FA on, 302 to /login?requires2FA=1&userId=...&returnTo=... (the userId the 2FA step names, as a password sign-in answers it) with the 2fa_pending cookie for POST /api/auth/2fa/verify. Provider tokens are never stored.",
    envelope: false,
    rateLimit: signInLimit,
    request: {
      params: providerParam,
      query: z.object({
        code: z.string().max(4096).optional(),
        state: z.string().max(4096).optional(),
        error: z.string().max(256).optional(),
      }),
    },
    async handler({ ctx, params, query, scope }) {
      const providers = scope.identityProviders!;
      const provider = await providers.active(params.provider);
      if (query.error !== undefined) {
        clearFlow(ctx);
        throw new OidcProviderError(provider.displayName, /^[A-Za-z0-9_.-]{1,64}$/.test(query.error) ? query.error : 'unknown_error');
      }
      const flow = await finishFlow(ctx, scope.authSecrets, query.state, provider.id);
      clearFlow(ctx);
      const callbackUrl = new URL(providers.redirectUri(provider.id));
      callbackUrl.search = ctx.querystring;
      const claims = await scope.oidcClients.exchange(provider, callbackUrl, flow);
      const userId = await scope.oidcLinks.userFor(flow.tenantId, provider, claims);
      const user = await scope.users.findById(userId);
      const audit = (action: string, level: 'low' | 'medium', message: string, extra: Record<string, unknown> = {}) =>
        recordRequestAudit(ctx, {
          domain: 'auth',
          operation: action.slice('auth.'.length),
          action,
          level,
          outcome: action === 'auth.sign-in.failed' ? 'failure' : 'success',
          message,
          actor: { userId, tenantId: user?.tenant_id ?? flow.tenantId },
          target: { type: 'user', id: userId },
          details: { method: 'oidc', provider: provider.id, ...extra },
        });
      const name = user?.email ?? userId;
      let result;
      try {
        result = await scope.signIn.complete(ctx, userId);
      } catch (err) {
        if ((err as { code?: string }).code === 'ACCOUNT_BLOCKED')
          await audit('auth.sign-in.failed', 'medium', `Sign-in failed for ${name} (${provider.displayName}): the account is blocked`, {
            reason: 'blocked',
          });
        throw err;
      }
      if ('requires2FA' in result)
        await audit('auth.sign-in.second-factor-required', 'low', `Sign-in of ${name} by ${provider.displayName}: second factor required`);
      else await audit('auth.sign-in.succeeded', 'low', `${name} signed in (${provider.displayName})`);
      // Checked when the flow started and sealed since; checked again by the same rule before it is followed.
      const returnTo = localPathOr(flow.returnTo, '/');
      ctx.redirect(
        'requires2FA' in result
          ? `/login?requires2FA=1&userId=${encodeURIComponent(result.userId)}&returnTo=${encodeURIComponent(returnTo)}`
          : returnTo,
      );
    },
  }),
];

import { z } from 'zod';
import {
  defineRoute,
  ForbiddenError,
  recordRequestAudit,
  type RouteContext,
  type RouteDefinition,
  type RouteRequestSchemas,
  type TypedRouteDefinition,
} from '../../kernel/sdk.js';
import { localeInput, localePatch, type LocaleDefinition } from './locales-service.js';

const codeParam = { params: z.object({ code: z.string().min(1).max(64) }) };
const locale = z
  .object({ code: z.string(), name: z.string(), isDefault: z.boolean(), fallback: z.string().nullable() })
  .meta({ id: 'Locale' });

type Change = 'created' | 'changed' | 'deleted';

/** Locale changes are configuration changes: each is recorded in the audit trail (locale.created|changed|deleted). */
function audited(ctx: RouteContext['ctx'], what: Change, code: string, details: Record<string, unknown>): Promise<void> {
  return recordRequestAudit(ctx, {
    domain: 'content',
    operation: `locale-${what}`,
    action: `locale.${what}`,
    outcome: 'success',
    level: 'medium',
    message: `Locale '${code}' ${what}`,
    target: { type: 'locale', id: code },
    details,
  });
}

/**
 * A write of locales: `system:settings`, and (locales being configuration of the installation, shared by every
 * tenant as collection schemas and components are) only by the default tenant's administrators when tenants are on.
 */
function write<S extends RouteRequestSchemas>(route: Omit<TypedRouteDefinition<S>, 'permission' | 'tags'>): RouteDefinition {
  return defineRoute<S>({
    ...route,
    permission: 'system:settings',
    tags: ['locales'],
    handler: (call) => {
      if (call.scope.config.multiTenant && call.identity.tenantId !== 'default')
        throw new ForbiddenError('Locales are shared by all tenants; only the default tenant changes them');
      return route.handler(call);
    },
  });
}

/** Locales (API decisions, "Locales"): content:read reads them, system:settings writes them. */
export const localeRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/api/locales',
    permission: 'content:read',
    tags: ['locales'],
    summary: 'The content locales: the default first, each with its fallback',
    request: {},
    response: z.array(locale),
    handler: ({ scope }) => scope.locales.list(),
  }),
  write({
    method: 'POST',
    idempotent: true,
    path: '/api/locales',
    status: 201,
    summary: 'Adds a content locale (system:settings)',
    description:
      "code: a BCP 47 tag, stored in its canonical form (pt-br -> pt-BR); name defaults to the language's English name; fallback names another locale. 409 CONFLICT when the code exists; 400 VALIDATION_ERROR for a code that is not BCP 47 or a fallback that is not a locale.",
    request: { body: localeInput },
    response: locale,
    handler: async ({ ctx, body, scope }): Promise<LocaleDefinition> => {
      const made = await scope.locales.create(body);
      await audited(ctx, 'created', made.code, { name: made.name, fallback: made.fallback });
      return made;
    },
  }),
  write({
    method: 'PATCH',
    path: '/api/locales/:code',
    summary: "Changes a locale's name or fallback, or makes it the default (system:settings)",
    description:
      "fallback: another locale, or null; a fallback chain that comes back to a locale is 400 VALIDATION_ERROR. isDefault: true makes this locale the default (the previous default stops being it; the default has no fallback, so this drops its own) and moves entries' values so each stays under its locale: the previous default's values become its version, the new default's (as reads in it answered them) the entry's own; other locales keep their own values (what they took from the default they now take from the new one).",
    request: { ...codeParam, body: localePatch },
    response: locale,
    handler: async ({ ctx, params, body, scope }): Promise<LocaleDefinition> => {
      const before = await scope.locales.get(params.code);
      let moved: { entriesMoved: number } | undefined;
      const after = await scope.locales.update(params.code, body, (m) => (moved = m));
      await audited(ctx, 'changed', after.code, { before, after, ...moved });
      return after;
    },
  }),
  write({
    method: 'DELETE',
    path: '/api/locales/:code',
    summary: 'Deletes a locale (system:settings)',
    description:
      "409 CONFLICT for the default locale, and for a locale another locale falls back to (the answer names them: change their fallback first). Entries' versions in the locale are deleted with it (the audit entry counts them).",
    request: codeParam,
    response: z.object({ deleted: z.literal(true) }),
    handler: async ({ ctx, params, scope }) => {
      const before = await scope.locales.get(params.code);
      const versionsDeleted = await scope.locales.remove(params.code);
      await audited(ctx, 'deleted', before.code, { name: before.name, versionsDeleted });
      return { deleted: true as const };
    },
  }),
];

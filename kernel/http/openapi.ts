import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { z } from 'zod';
import { ERROR_CATALOGUE } from '../errors.js';
import type { NamespaceMap } from './namespaces.js';
import type { RegisteredRoute } from './route-table.js';

const errorBody = z
  .object({
    success: z.literal(false),
    error: z.string().meta({ description: 'Stable error code (see x-error-catalogue)' }),
    message: z.string(),
  })
  .meta({ id: 'Error' });

const idempotencyHeader = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        'Makes a retry safe: the same key, caller and request within 24 h replays the first 2xx answer (with Idempotent-Replayed: true) ' +
        'instead of creating again; a key still in flight -> 409 IDEMPOTENCY_KEY_IN_USE; the key used for another request -> 422 IDEMPOTENCY_KEY_REUSED.',
    }),
});

const isObject = (s: z.ZodType | undefined): s is z.ZodObject => s instanceof z.ZodObject;

function operation(route: RegisteredRoute, namespacePermission: string | undefined): ZodOpenApiOperationObject {
  const req = route.request;
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const params = isObject(req.params)
    ? req.params
    : pathParams.length
      ? z.object(Object.fromEntries(pathParams.map((p) => [p, z.string()])))
      : undefined;
  const success =
    route.envelope === false
      ? (route.response ?? z.unknown())
      : z.object({ success: z.literal(true), data: route.response ?? z.unknown() });
  const status = String(route.status ?? 200);
  const permission =
    route.permission === 'public' ? 'public' : [namespacePermission, route.permission].filter((p) => p && p !== 'public').join(' + ');
  return {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[/:{}-]+(\w)/g, (_, c: string) => c.toUpperCase())}`,
    summary: route.summary,
    description: [
      route.description,
      `Permission: ${permission}${route.permissionScope ? ` (or ${route.permission}:<${route.permissionScope}>)` : ''}${
        route.installation === 'admin'
          ? '; installation administrators only (admins of the default tenant)'
          : route.installation === 'tenant'
            ? "; the installation's own tenant only (the default one)"
            : ''
      }. Plugin: ${route.owner}.`,
    ]
      .filter(Boolean)
      .join('\n\n'),
    tags: route.tags ?? [route.namespace ?? route.owner],
    'x-permission': route.permission,
    ...(route.permissionScope ? { 'x-permission-scope': route.permissionScope } : {}),
    ...(route.installation ? { 'x-installation': route.installation } : {}),
    'x-plugin': route.owner,
    ...(route.permission === 'public' ? { security: [] } : {}),
    requestParams: {
      ...(params ? { path: params } : {}),
      ...(isObject(req.query) ? { query: req.query } : {}),
      ...(route.idempotent ? { header: idempotencyHeader } : {}),
    },
    ...(route.idempotent ? { 'x-idempotent': true } : {}),
    ...(req.body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: req.body },
              ...(req.form ? { 'application/x-www-form-urlencoded': { schema: req.body } } : {}),
            },
          },
        }
      : req.multipart
        ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: req.multipart } } } }
        : {}),
    responses: {
      [status]: { description: 'Success', content: { 'application/json': { schema: success } } },
      '4XX': { description: 'Refused: see the error code', content: { 'application/json': { schema: errorBody } } },
      '500': {
        description: 'Internal error (generic message; details in the log under X-Request-Id)',
        content: { 'application/json': { schema: errorBody } },
      },
    },
  } as ZodOpenApiOperationObject;
}

/** OpenAPI 3.1, generated from the same route declarations the router and dispatcher use. */
export function buildOpenApi(routes: readonly RegisteredRoute[], namespaces: NamespaceMap, version: string): Record<string, unknown> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const item = (paths[path] ??= {}) as Record<string, ZodOpenApiOperationObject>;
    const nsPermission = route.namespace ? namespaces.permissionFor(route.namespace, route.method) : undefined;
    item[route.method.toLowerCase()] = operation(route, nsPermission);
  }
  const document = createDocument({
    openapi: '3.1.0',
    info: {
      title: 'CMS API',
      version,
      description: 'Every response carries X-API-Version: 1; /api/v1/... is an alias of /api/...; GET 200 responses carry an ETag.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'session' },
        bearer: { type: 'http', scheme: 'bearer', description: 'Website token or API key (sck_...)' },
      },
    },
    security: [{ session: [] }, { bearer: [] }],
    paths,
  });
  return {
    ...document,
    'x-error-catalogue': ERROR_CATALOGUE,
    'x-namespaces': Object.fromEntries(namespaces.entries().map(([ns, e]) => [ns, e.methods])),
  };
}

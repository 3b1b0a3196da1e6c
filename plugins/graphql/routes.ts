import type { Context } from 'koa';
import { z } from 'zod';
import { checkInput, defineRoute, type RouteDefinition, optional } from '../../kernel/sdk.js';
import { requestError } from './errors.js';

const DESCRIPTION = [
  'The schema is generated from the collections: per collection `posts(page, limit, sort, filter, search, status): PostList!`, `post(_id): Post`,',
  'mutations `createPost`, `updatePost`, `deletePost`, `setPostStatus` (content:write; the REST validation), subscriptions over WebSocket at this path.',
  'Reading needs content:read; without content:write only published entries are visible. Refusals before execution (syntax, schema, depth,',
  'cost, size) answer 4xx with `errors` only; execution errors answer 200 with `data` and `errors`, each error with `extensions.code`',
  '(and `extensions.issues` for VALIDATION_ERROR). `Accept: application/graphql-response+json` gets that media type.',
].join(' ');

const result = z
  .object({
    data: z.record(z.string(), z.unknown()).nullable().optional(),
    errors: z
      .array(
        z.object({
          message: z.string(),
          locations: z.array(z.object({ line: z.number(), column: z.number() })).optional(),
          path: z.array(z.union([z.string(), z.number()])).optional(),
          extensions: z.object({ code: z.string() }).catchall(z.unknown()).optional(),
        }),
      )
      .optional(),
  })
  .meta({ id: 'GraphqlResult' });

function answer(ctx: Context, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
  ctx.type = /application\/graphql-response\+json/i.test(ctx.get('accept')) ? 'application/graphql-response+json' : 'application/json';
}

/** The query string of GET /api/graphql as an API call: `query` is required (400 VALIDATION_ERROR without it). */
const getQuery = z.object({
  query: z.string().describe('The GraphQL document'),
  variables: z.string().optional().describe('JSON object'),
  operationName: z.string().optional(),
});

const EXPLORER =
  'A browser that prefers HTML (`Accept: text/html`) gets the GraphQL explorer (GraphiQL) instead while it is on (GRAPHQL_EXPLORER: ' +
  '`auto` (default) or `on` = on in every environment, `off`): a signed-in user (session cookie) with content:read the page, with `query` optional (it fills the editor), ' +
  'anyone else a small HTML page saying how to sign in (401; 403 for a user without content:read). Every other caller gets the API answer.';

export const graphqlRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'POST',
    path: '/api/graphql',
    permission: 'public',
    envelope: false,
    tags: ['graphql'],
    summary: 'Runs a GraphQL query or mutation (GraphQL over HTTP)',
    description: DESCRIPTION,
    request: {
      body: z.object({
        query: z.string().describe('The GraphQL document'),
        variables: z.record(z.string(), z.unknown()).nullable().optional(),
        operationName: z.string().nullable().optional(),
      }),
    },
    response: result,
    async handler({ ctx, body, identity, scope }) {
      const { status, body: out } = await scope.graphql.http(body, identity, 'POST');
      answer(ctx, status, out);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/graphql',
    permission: 'public',
    envelope: false,
    tags: ['graphql'],
    summary: 'Runs a GraphQL query from the URL (queries only; mutations need POST: 405); browsers get the explorer',
    description: `${DESCRIPTION} ${EXPLORER}`,
    request: {
      // Checked in the handler: the explorer page takes the query string without `query`.
      query: getQuery.partial({ query: true }),
    },
    response: result,
    async handler({ ctx, query: raw, identity, scope }) {
      const explorer = scope.graphqlExplorer;
      if (explorer.enabled) ctx.vary('Accept');
      if (explorer.wantsPage(ctx)) return explorer.sendPage(ctx, identity, optional(scope, 'adminUi') !== undefined);
      const query = checkInput<z.output<typeof getQuery>>(getQuery, raw, 'query');
      let variables: Record<string, unknown> | undefined;
      if (query.variables) {
        try {
          variables = JSON.parse(query.variables);
        } catch {
          return answer(ctx, 400, { errors: [requestError('VALIDATION_ERROR', 'variables must be a JSON object').toJSON()] });
        }
      }
      const { status, body: out } = await scope.graphql.http({ ...query, variables }, identity, 'GET');
      if (status === 405) ctx.set('Allow', 'POST');
      answer(ctx, status, out);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/graphql/explorer/assets/:file',
    permission: 'public',
    envelope: false,
    rateLimit: false,
    tags: ['graphql'],
    summary: "A file of the GraphQL explorer's build (hashed names, cached for a year); 404 while the explorer is off",
    request: { params: z.object({ file: z.string().regex(/^[A-Za-z0-9_.-]+$/) }) },
    handler: ({ ctx, params, scope }) => scope.graphqlExplorer.sendAsset(ctx, params.file),
  }),
];

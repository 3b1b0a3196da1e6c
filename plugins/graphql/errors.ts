import { GraphQLError } from 'graphql';
import { defineError, defineErrorCode, ERROR_CATALOGUE } from '../../kernel/sdk.js';

/**
 * Codes of refusals before execution. They travel in `errors[].extensions.code` (GraphQL shape); the
 * HTTP status of the whole response is the code's status.
 */
defineErrorCode('GRAPHQL_PARSE_FAILED', 400, 'GraphQL: the query document has a syntax error (locations tell where).');
defineErrorCode(
  'GRAPHQL_VALIDATION_FAILED',
  400,
  'GraphQL: the operation does not fit the schema (unknown field, wrong argument or variable type, subscription over HTTP, no operation named so).',
);
defineErrorCode(
  'GRAPHQL_DEPTH_LIMIT',
  400,
  'GraphQL: the operation nests fields deeper than the depth limit (plugins.options.graphql.maxDepth, default 10).',
);
defineErrorCode(
  'GRAPHQL_COST_LIMIT',
  400,
  'GraphQL: the estimated cost of the operation is above the limit (plugins.options.graphql.maxCost, default 1000); list queries cost their limit times their items.',
);
export class SubscriptionLimitError extends defineError(
  'GRAPHQL_SUBSCRIPTION_LIMIT',
  429,
  'GraphQL: the WebSocket connection already holds the most subscriptions it may (plugins.options.graphql.maxSubscriptionsPerConnection, default 100).',
  (max: number) => `This connection already holds ${max} subscriptions; complete one first`,
) {}
defineErrorCode(
  'GRAPHQL_QUERY_TOO_LARGE',
  413,
  'GraphQL: the query document is longer than the limit (plugins.options.graphql.maxQueryLength, default 20000 characters).',
);

export type RequestErrorCode =
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'GRAPHQL_DEPTH_LIMIT'
  | 'GRAPHQL_COST_LIMIT'
  | 'GRAPHQL_QUERY_TOO_LARGE'
  | 'VALIDATION_ERROR'
  | 'AUTHENTICATION_REQUIRED'
  | 'FORBIDDEN'
  | 'METHOD_NOT_ALLOWED';

/** A refusal before execution, in the GraphQL error shape with a stable code (keeping the locations of `from`). */
export function requestError(code: RequestErrorCode, message: string, from?: GraphQLError): GraphQLError {
  return new GraphQLError(message, { nodes: from?.nodes, source: from?.source, positions: from?.positions, extensions: { code } });
}

/** The HTTP status for a response of request errors: the status of the first one's code. */
export function statusOf(errors: readonly GraphQLError[]): number {
  const code = errors[0]?.extensions?.code;
  return ERROR_CATALOGUE.find((e) => e.code === code)?.status ?? 400;
}

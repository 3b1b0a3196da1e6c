import { extendSchema, isObjectType, parse, validateSchema, type GraphQLSchema } from 'graphql';
import type { Logger } from '../../kernel/sdk.js';
import type { GraphqlContribution } from './public.js';
import { setShared } from './shared-fields.js';

type FieldResolvers = { resolve?: unknown; subscribe?: unknown } | ((...args: unknown[]) => unknown);

/** Sets the resolvers of a contribution ({Type: {field: fn | {resolve, subscribe}}}) on the extended schema's fields. */
function attach(schema: GraphQLSchema, resolvers: Record<string, unknown>): void {
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`resolvers name '${typeName}', which is not an object type of the schema`);
    const own = type.getFields();
    for (const [fieldName, r] of Object.entries((fields ?? {}) as Record<string, FieldResolvers>)) {
      const field = own[fieldName];
      if (!field) throw new Error(`resolvers name '${typeName}.${fieldName}', which the typeDefs do not declare`);
      // A contributed resolver may read more of the caller than the permission context: never shared.
      setShared(field as Parameters<typeof setShared>[0], false);
      if (typeof r === 'function') field.resolve = r as typeof field.resolve;
      else {
        if (typeof r?.resolve === 'function') field.resolve = r.resolve as typeof field.resolve;
        if (typeof r?.subscribe === 'function') field.subscribe = r.subscribe as typeof field.subscribe;
      }
    }
  }
}

/**
 * Adds the slices other plugins contribute through the `graphql` registry (SDL such as
 * `extend type Query { ... }` plus resolvers; the context has `identity`, and resolvers check their
 * own permissions). A slice that does not fit (a clash with a generated name, a bad resolver map) is
 * left out and logged, never breaking the rest of the schema.
 */
export function applyContributions(schema: GraphQLSchema, contributions: GraphqlContribution[], logger: Logger): GraphQLSchema {
  let current = schema;
  for (const c of contributions) {
    try {
      const next = extendSchema(current, parse(c.typeDefs));
      attach(next, c.resolvers);
      const errors = validateSchema(next);
      if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
      current = next;
    } catch (err) {
      logger.error({ err, contribution: c.id }, 'GraphQL contribution left out of the schema');
    }
  }
  return current;
}

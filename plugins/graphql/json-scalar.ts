import { GraphQLScalarType, valueFromASTUntyped } from 'graphql';

/** Any JSON value: the `json` fields and the `filter` argument. */
export const GraphQLJSON = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value (object, array, string, number, boolean or null).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});
